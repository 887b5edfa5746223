import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { storeClient } from '../adapters/dynamodb/client';
import { withoutSdkLogging } from '../adapters/sdk-logging';
import { queueClient } from '../adapters/sqs/client';
import { readConfig } from '../runtime/config';
import { buildRuntimeDependencies, type RuntimeDeps } from '../runtime/dependencies';
import { discardLines } from '../runtime/observability/logger';
import { taskLimitsOf } from '../runtime/task-limits';
import type { TaskRegistry } from '../runtime/tasks/registry';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './dynamodb-local';
import { LOCAL_TABLE_NAME } from './local-resources';
import { prettyLogSink } from './pretty-log';

const LOCAL_EVENT_BUS = 'sundial-local';

/** Where the local platform's services listen, and the environment its Lambdas see. */
export interface LocalRuntimeSettings {
  /** The `SUNDIAL_*` environment of the tick, worker and admin functions (see `localRuntimeEnv`). */
  env: Record<string, string | undefined>;
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  eventsEndpoint: string;
  /** How far ahead of the system clock the runtime's clock runs (`LocalPlatformOptions.clockOffsetMs`). */
  clockOffsetMs?: number;
}

/**
 * The environment the local Lambdas run with: the user's `SUNDIAL_*` settings over the deployed
 * defaults (the tick hands the due shards to dispatchers, here in the platform's process as to the
 * dispatcher Lambda in AWS: ADR 0006), and the local table, queues and bus, which no setting overrides.
 */
export function localRuntimeEnv(
  userEnv: Record<string, string | undefined>,
  queues: { queueUrl: string; criticalQueueUrl: string },
): Record<string, string | undefined> {
  return {
    SUNDIAL_LOG_LEVEL: 'info',
    ...userEnv,
    SUNDIAL_TABLE_NAME: LOCAL_TABLE_NAME,
    SUNDIAL_QUEUE_URL: queues.queueUrl,
    SUNDIAL_CRITICAL_QUEUE_URL: queues.criticalQueueUrl,
    SUNDIAL_EVENT_BUS_NAME: LOCAL_EVENT_BUS,
  };
}

/**
 * The runtime's dependencies against the local services, as one Lambda sandbox builds its own: the
 * tick and admin functions share one set in the platform's process, and each worker sandbox builds one.
 * Log lines go to `log`, made readable; metrics nowhere.
 */
export function localRuntimeDeps(
  settings: LocalRuntimeSettings,
  registry: TaskRegistry,
  log: (line: string) => void,
): RuntimeDeps {
  const config = readConfig(settings.env);
  const clientSettings = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const built = buildRuntimeDependencies(config, {
    dynamodb: storeClient({ ...clientSettings, endpoint: settings.dynamodbEndpoint }),
    sqs: queueClient({ ...clientSettings, endpoint: settings.sqsEndpoint }),
    eventbridge: withoutSdkLogging(
      new EventBridgeClient({ ...clientSettings, endpoint: settings.eventsEndpoint }),
    ),
    logSink: prettyLogSink(log),
  });
  const offset = settings.clockOffsetMs;
  return {
    ...built,
    ...(offset !== undefined && { clock: { now: () => Date.now() + offset } }),
    // The tick wakes waiting lines by the tasks' limits as loaded, as the stack tells it in AWS
    config: { ...built.config, taskLimits: taskLimitsOf(registry) },
    metricsSink: discardLines,
  };
}
