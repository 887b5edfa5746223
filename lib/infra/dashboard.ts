import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { SundialAlarmSet } from './alarms';
import type { SundialMetrics } from './metrics';

export interface SundialDashboardProps {
  readonly metrics: SundialMetrics;
  readonly queue: sqs.IQueue;
  readonly criticalQueue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly functions: {
    readonly tick: lambda.IFunction;
    readonly worker: lambda.IFunction;
    readonly admin: lambda.IFunction;
    /** Absent with `dispatchers: 0` (ADR 0006). */
    readonly dispatcher?: lambda.IFunction;
  };
  readonly alarms: SundialAlarmSet;
}

const WIDTH = 8;
const HEIGHT = 6;

/**
 * One dashboard: jobs by outcome, fire lag, running jobs per task, the jobs queue's depth and age,
 * the tick's work, the Lambdas' health, and the alarms.
 */
export function createDashboard(scope: Construct, props: SundialDashboardProps): cloudwatch.Dashboard {
  const { metrics, queue, deadLetterQueue, functions } = props;
  const liveFunctions = Object.entries(functions).filter(
    (entry): entry is [string, lambda.IFunction] => entry[1] !== undefined,
  );
  const minute = Duration.minutes(1);
  const graph = (
    title: string,
    left: cloudwatch.IMetric[],
    options: Partial<cloudwatch.GraphWidgetProps> = {},
  ) => new cloudwatch.GraphWidget({ title, left, width: WIDTH, height: HEIGHT, ...options });

  const dashboard = new cloudwatch.Dashboard(scope, 'Dashboard', {
    defaultInterval: Duration.hours(3),
  });
  dashboard.addWidgets(
    graph(
      'Jobs by outcome (per minute)',
      [
        metrics.worker('JobsSucceeded', 'Sum').with({ label: 'succeeded' }),
        metrics.worker('JobsFailed', 'Sum').with({ label: 'failed' }),
        metrics.worker('JobsRetried', 'Sum').with({ label: 'retried' }),
        metrics.worker('JobsMissed', 'Sum').with({ label: 'missed start deadline' }),
        metrics.tick('JobsReaped', 'Sum').with({ label: 'reaped (lease expired)' }),
      ],
      { stacked: true },
    ),
    graph(
      'Fire lag (ms)',
      [
        metrics.worker('StartLag', 'p50').with({ label: 'start − fire time p50' }),
        metrics.worker('StartLag', 'p99').with({ label: 'start − fire time p99' }),
        metrics.tick('FireLag', 'p99').with({ label: 'late dispatch p99 (tick)' }),
      ],
      { leftYAxis: { min: 0 } },
    ),
    graph('Running jobs per task', [metrics.runningJobsPerTask(minute)], { leftYAxis: { min: 0 } }),
  );
  dashboard.addWidgets(
    graph('Jobs queue depth', [
      queue.metricApproximateNumberOfMessagesVisible({ period: minute, label: 'ready' }),
      queue.metricApproximateNumberOfMessagesNotVisible({
        period: minute,
        label: 'in flight or waiting for a slot',
      }),
      queue.metric('ApproximateNumberOfMessagesDelayed', {
        period: minute,
        statistic: 'Maximum',
        label: 'delayed (future fire times)',
      }),
      deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: minute, label: 'dead-lettered' }),
    ]),
    graph('Jobs queue age (s)', [
      queue.metricApproximateAgeOfOldestMessage({
        period: minute,
        statistic: 'Maximum',
        label: 'oldest message',
      }),
      props.criticalQueue.metricApproximateAgeOfOldestMessage({
        period: minute,
        statistic: 'Maximum',
        label: 'oldest critical message',
      }),
    ]),
    graph(
      'Tick',
      [
        metrics.tick('SchedulesProcessed', 'Sum').with({ label: 'schedules processed' }),
        metrics.tick('JobsEnqueued', 'Sum').with({ label: 'jobs enqueued' }),
        metrics.dispatcher('SchedulesProcessed', 'Sum').with({ label: 'schedules processed by dispatchers' }),
        metrics.dispatcher('JobsEnqueued', 'Sum').with({ label: 'jobs enqueued by dispatchers' }),
        metrics.worker('JobsDeferred', 'Sum').with({ label: 'jobs deferred (no slot)' }),
      ],
      { right: [metrics.tick('TickDuration', 'Maximum').with({ label: 'tick duration (ms)' })] },
    ),
  );
  dashboard.addWidgets(
    graph(
      'Lambda errors and throttles',
      liveFunctions.flatMap(([name, fn]) => [
        fn.metricErrors({ period: minute, label: `${name} errors` }),
        fn.metricThrottles({ period: minute, label: `${name} throttles` }),
      ]),
    ),
    graph(
      'Lambda duration p99 (ms)',
      liveFunctions.map(([name, fn]) => fn.metricDuration({ period: minute, statistic: 'p99', label: name })),
    ),
    new cloudwatch.AlarmStatusWidget({
      title: 'Alarms',
      alarms: Object.values(props.alarms).filter((alarm) => alarm !== undefined),
      width: WIDTH,
      height: HEIGHT,
    }),
  );
  return dashboard;
}
