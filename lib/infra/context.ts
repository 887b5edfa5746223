import { RemovalPolicy } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { SundialProps } from './props';
import { SundialPropsError } from './settings';

const NUMBER_KEYS = [
  'shards',
  'dispatchers',
  'workerBatchSize',
  'workerMaxConcurrency',
  'criticalWorkerMaxConcurrency',
  'workerTimeoutSeconds',
  'workerMemorySize',
  'defaultResultTtlSeconds',
  'fireLagP99ThresholdMs',
  'maxReceiveCount',
  'maxScheduleRemovalPercent',
] as const;
const KNOWN_KEYS = new Set<string>([
  ...NUMBER_KEYS,
  'removalPolicy',
  'alarmTopicArn',
  'eventBusName',
  'tracing',
  'functionsDir',
  'tickReservedConcurrency',
  'logRetentionDays',
  'logLevel',
  'billing',
  'keepSchedulesOnDelete',
]);

/** Turns the context object into props; unknown keys and wrong types are reported all at once. */
export function propsFromContext(scope: Construct, context: unknown, projectRoot: string): SundialProps {
  if (context === undefined) return {};
  // `cdk synth -c sundial='{…}'` passes the object as a string.
  if (typeof context === 'string') {
    try {
      return propsFromContext(scope, JSON.parse(context) as unknown, projectRoot);
    } catch (error) {
      if (error instanceof SundialPropsError) throw error;
      throw new SundialPropsError([`the "sundial" context is not valid JSON: ${(error as Error).message}`]);
    }
  }
  if (typeof context !== 'object' || context === null || Array.isArray(context)) {
    throw new SundialPropsError(['the "sundial" context must be a JSON object']);
  }
  const input = context as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(input)) {
    if (!KNOWN_KEYS.has(key)) problems.push(`unknown "sundial" context key '${key}'`);
  }
  const props: Record<string, unknown> = {};
  for (const key of NUMBER_KEYS) {
    if (input[key] === undefined) continue;
    if (typeof input[key] === 'number') props[key] = input[key];
    else problems.push(`"sundial" context '${key}' must be a number, got ${JSON.stringify(input[key])}`);
  }
  const {
    removalPolicy,
    alarmTopicArn,
    eventBusName,
    tracing,
    functionsDir,
    tickReservedConcurrency,
    logRetentionDays,
    logLevel,
    billing,
    keepSchedulesOnDelete,
  } = input;
  if (removalPolicy !== undefined) {
    if (removalPolicy === 'retain') props.removalPolicy = RemovalPolicy.RETAIN;
    else if (removalPolicy === 'destroy') props.removalPolicy = RemovalPolicy.DESTROY;
    else
      problems.push(
        `"sundial" context 'removalPolicy' must be "retain" or "destroy", got ${JSON.stringify(removalPolicy)}`,
      );
  }
  if (typeof alarmTopicArn === 'string')
    props.alarmTopic = sns.Topic.fromTopicArn(scope, 'AlarmTopic', alarmTopicArn);
  else if (alarmTopicArn !== undefined) problems.push(`"sundial" context 'alarmTopicArn' must be a string`);
  if (typeof eventBusName === 'string')
    props.eventBus = events.EventBus.fromEventBusName(scope, 'EventBus', eventBusName);
  else if (eventBusName !== undefined) problems.push(`"sundial" context 'eventBusName' must be a string`);
  if (typeof tracing === 'boolean') props.tracing = tracing;
  else if (tracing !== undefined) problems.push(`"sundial" context 'tracing' must be true or false`);
  if (typeof keepSchedulesOnDelete === 'boolean') props.keepSchedulesOnDelete = keepSchedulesOnDelete;
  else if (keepSchedulesOnDelete !== undefined)
    problems.push(`"sundial" context 'keepSchedulesOnDelete' must be true or false`);
  if (typeof functionsDir === 'string') props.functionsDir = `${projectRoot}/${functionsDir}`;
  else if (functionsDir !== undefined) problems.push(`"sundial" context 'functionsDir' must be a string`);
  if (tickReservedConcurrency === null || typeof tickReservedConcurrency === 'number') {
    props.tickReservedConcurrency = tickReservedConcurrency;
  } else if (tickReservedConcurrency !== undefined) {
    problems.push(`"sundial" context 'tickReservedConcurrency' must be a number or null`);
  }
  if (typeof logRetentionDays === 'number') props.logRetention = logRetentionDays;
  else if (logRetentionDays !== undefined)
    problems.push(`"sundial" context 'logRetentionDays' must be a number`);
  if (typeof logLevel === 'string') props.logLevel = logLevel;
  else if (logLevel !== undefined) problems.push(`"sundial" context 'logLevel' must be a string`);
  if (typeof billing === 'object' && billing !== null && !Array.isArray(billing)) props.billing = billing;
  else if (billing !== undefined) problems.push(`"sundial" context 'billing' must be an object`);
  if (problems.length > 0) throw new SundialPropsError(problems);
  return props as SundialProps;
}
