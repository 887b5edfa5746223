import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { storeClient } from '../adapters/dynamodb/client';
import { DynamoDbStore } from '../adapters/dynamodb/dynamodb-store';
import { queueClient } from '../adapters/sqs/client';
import { SqsDeadLetterQueue } from '../adapters/sqs/sqs-dead-letter-queue';
import { SqsJobQueue } from '../adapters/sqs/sqs-job-queue';
import { type Clock, type Sleep, sleep, systemClock } from '../core/clock';
import type { DeadLetterQueue } from '../core/ports/dead-letter-queue';
import type { DispatcherInvoker } from '../core/ports/dispatcher-invoker';
import { discardingPublisher, type EventPublisher } from '../core/ports/event-publisher';
import type { FailureDestination } from '../core/ports/failure-destination';
import type { JobQueue } from '../core/ports/job-queue';
import type { JobStore } from '../core/ports/job-store';
import type { ScheduleStore } from '../core/ports/schedule-store';
import { ConfigError, type RuntimeConfig, readConfig } from './config';
import { LazyEventBridge } from './event-bus';
import { failureDestinationsOf } from './failure-destinations';
import { endingRefusedJobs } from './flow/refused-messages';
import { createLogger, type LineSink, type RuntimeLogger, stdoutSink } from './observability/logger';

/** Everything the tick, worker and admin handlers use; built once per cold start. */
export interface RuntimeDeps {
  config: RuntimeConfig;
  scheduleStore: ScheduleStore;
  jobStore: JobStore;
  queue: JobQueue;
  events: EventPublisher;
  /** Where the worker moves messages it cannot read; absent: they stay until the queue's redrive policy. */
  deadLetters?: DeadLetterQueue;
  /** Starts the dispatcher Lambda (ADR 0006); absent: the tick runs its dispatchers in its own process. */
  dispatcherInvoker?: DispatcherInvoker;
  /** Per task, where the worker sends its jobs that failed for good; absent: nowhere. */
  failureDestinations?: ReadonlyMap<string, FailureDestination>;
  clock: Clock;
  /** How the runtime waits (send phases, a job's sub-second rest, a handler's deadline, pauses between tries). */
  sleep: Sleep;
  /** Uniform in [0, 1): jitter and backoff. */
  random: () => number;
  /** A new unique id: lease owners, chain tokens, ids of added jobs and schedules. */
  newId: () => string;
  logger: RuntimeLogger;
  /** Where CloudWatch EMF metric documents are written (stdout in Lambda). */
  metricsSink: LineSink;
}

/** What to use instead of SDK clients configured from the environment (the local platform passes its own clients). */
export interface RuntimeClients {
  dynamodb?: DynamoDBClient;
  sqs?: SQSClient;
  eventbridge?: EventBridgeClient;
  /** Where log lines go. @default stdout (as Lambda wants them) */
  logSink?: LineSink;
  /**
   * Builds the invoker of the dispatcher Lambda the configuration names (`SUNDIAL_DISPATCHER_FUNCTION`,
   * which the stack gives the tick alone). Only the tick's entry passes one, so only its bundle holds the
   * Lambda client.
   */
  dispatcherInvoker?: (functionName: string) => DispatcherInvoker;
}

/**
 * The dependencies of this process as a getter: configuration read from the environment, SDK clients
 * and adapters, created on its first call and reused by every later invocation of a warm Lambda.
 */
export function dependenciesOnce(clients: RuntimeClients = {}): () => RuntimeDeps {
  let built: RuntimeDeps | undefined;
  return () => {
    built ??= buildRuntimeDependencies(readConfig(), clients);
    return built;
  };
}

/** The dependencies of a Lambda that starts no dispatcher Lambda (all but the tick). */
export const runtimeDependencies = dependenciesOnce();

/** Builds a fresh set of dependencies from a configuration (the local platform and tests call this). */
export function buildRuntimeDependencies(config: RuntimeConfig, clients: RuntimeClients = {}): RuntimeDeps {
  const logger = createLogger({ level: config.logLevel, ...(clients.logSink && { sink: clients.logSink }) });
  const store = new DynamoDbStore({
    client: clients.dynamodb ?? storeClient(),
    tableName: config.tableName,
    shards: config.shards,
  });
  const sqs = clients.sqs ?? queueClient();
  // A message the queue refuses for good ends its job rather than waiting, or being sent, for ever.
  const queue = endingRefusedJobs(
    new SqsJobQueue({
      client: sqs,
      queueUrl: config.queueUrl,
      ...(config.criticalQueueUrl ? { criticalQueueUrl: config.criticalQueueUrl } : {}),
      onSendFailure: (failure) => logger.error('queue send failed', { ...failure }),
    }),
    {
      jobStore: store,
      clock: systemClock,
      newId: randomUUID,
      logger,
      defaultResultTtlSeconds: config.defaultResultTtlSeconds,
    },
  );
  const eventbridge = new LazyEventBridge(clients.eventbridge);
  const events = config.eventBusName
    ? eventbridge.publisher(config.eventBusName, (failure) =>
        logger.warn('events rejected by EventBridge', { ...failure }),
      )
    : discardingPublisher;
  return {
    config,
    scheduleStore: store,
    jobStore: store,
    queue,
    events,
    ...(config.deadLetterQueueUrl
      ? { deadLetters: new SqsDeadLetterQueue({ client: sqs, queueUrl: config.deadLetterQueueUrl }) }
      : {}),
    ...(config.dispatcherFunctionName && {
      dispatcherInvoker: dispatcherInvokerOf(config.dispatcherFunctionName, clients),
    }),
    failureDestinations: failureDestinationsOf(config.failureDestinations, {
      sqs,
      eventBus: (eventBusName) => eventbridge.failureDestination(eventBusName),
    }),
    clock: systemClock,
    sleep,
    random: Math.random,
    newId: randomUUID,
    logger,
    metricsSink: stdoutSink,
  };
}

function dispatcherInvokerOf(functionName: string, clients: RuntimeClients): DispatcherInvoker {
  if (!clients.dispatcherInvoker) {
    throw new ConfigError([
      `SUNDIAL_DISPATCHER_FUNCTION is set (${functionName}), but only the tick's entry starts dispatcher Lambdas`,
    ]);
  }
  return clients.dispatcherInvoker(functionName);
}
