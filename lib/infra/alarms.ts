import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DISPATCH } from '../core/limits';
import type { SundialMetrics } from './metrics';

/** The alarms of a deployment, by what they watch. */
export interface SundialAlarmSet {
  /** A job message was dead-lettered (received `maxReceiveCount` times without being deleted). */
  readonly deadLetterQueue: cloudwatch.Alarm;
  /** A critical job message was dead-lettered. */
  readonly criticalDeadLetterQueue: cloudwatch.Alarm;
  /** EventBridge could not deliver a tick to the tick Lambda. */
  readonly tickDeadLetterQueue: cloudwatch.Alarm;
  /** Tick runs failed, were throttled, or reported errors. */
  readonly tickErrors: cloudwatch.Alarm;
  /** Dispatcher runs failed, were throttled, or reported errors (only with dispatchers, ADR 0006). */
  readonly dispatcherErrors?: cloudwatch.Alarm;
  /** No tick ran for five tick periods: nothing is being scheduled. */
  readonly tickNotRunning: cloudwatch.Alarm;
  /** Jobs start late: p99 of (start − fire time) above `fireLagP99ThresholdMs`. */
  readonly fireLag: cloudwatch.Alarm;
  /** More than {@link WORKER_ERROR_RATE_PERCENT}% of worker invocations failed as a whole. */
  readonly workerErrorRate: cloudwatch.Alarm;
  /** The worker received messages it cannot read (they go to the DLQ after `maxReceiveCount` receives). */
  readonly unreadableMessages: cloudwatch.Alarm;
}

export interface SundialAlarmsProps {
  readonly metrics: SundialMetrics;
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly criticalDeadLetterQueue: sqs.IQueue;
  readonly tickDeadLetterQueue: sqs.IQueue;
  readonly tickFunction: lambda.IFunction;
  readonly workerFunction: lambda.IFunction;
  readonly dispatcherFunction?: lambda.IFunction;
  readonly fireLagP99ThresholdMs: number;
  readonly alarmTopic?: sns.ITopic;
}

/** A worker invocation fails as a whole only on a bug or a timeout (jobs fail per message). */
export const WORKER_ERROR_RATE_PERCENT = 5;

/** The alarms, each with the optional SNS action (for ALARM and OK). Missing data never alarms but for the tick heartbeat. */
export class SundialAlarms extends Construct {
  readonly alarms: SundialAlarmSet;

  constructor(scope: Construct, id: string, props: SundialAlarmsProps) {
    super(scope, id);
    const tickPeriod = Duration.minutes(DISPATCH.tickPeriodMinutes);
    const five = Duration.minutes(5);
    const { metrics } = props;

    const tickFailures = new cloudwatch.MathExpression({
      expression: 'FILL(errors, 0) + FILL(throttles, 0) + FILL(reported, 0)',
      usingMetrics: {
        errors: props.tickFunction.metricErrors({ period: tickPeriod, statistic: 'Sum' }),
        throttles: props.tickFunction.metricThrottles({ period: tickPeriod, statistic: 'Sum' }),
        reported: metrics.tick('TickErrors', 'Sum', tickPeriod),
      },
      label: 'Tick failures',
      period: tickPeriod,
    });
    const workerErrorRate = new cloudwatch.MathExpression({
      expression: 'IF(invocations > 0, 100 * FILL(errors, 0) / invocations, 0)',
      usingMetrics: {
        errors: props.workerFunction.metricErrors({ period: five, statistic: 'Sum' }),
        invocations: props.workerFunction.metricInvocations({ period: five, statistic: 'Sum' }),
      },
      label: 'Worker error rate (%)',
      period: five,
    });

    this.alarms = {
      deadLetterQueue: this.notEmptyAlarm(
        'DeadLetterQueueNotEmpty',
        props.deadLetterQueue,
        'Job messages were dead-lettered. Inspect them, fix the cause, then redrive the DLQ to the jobs queue.',
      ),
      criticalDeadLetterQueue: this.notEmptyAlarm(
        'CriticalDeadLetterQueueNotEmpty',
        props.criticalDeadLetterQueue,
        'Critical job messages were dead-lettered. Inspect them, fix the cause, then redrive the DLQ to the critical queue.',
      ),
      tickDeadLetterQueue: this.notEmptyAlarm(
        'TickDeadLetterQueueNotEmpty',
        props.tickDeadLetterQueue,
        'EventBridge could not invoke the tick Lambda. Later ticks catch up; check the function and its concurrency.',
      ),
      tickErrors: this.alarm('TickErrors', {
        metric: tickFailures,
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        alarmDescription:
          'Tick runs failed, were throttled, or reported errors in 2 of the last 3 tick periods.',
      }),
      tickNotRunning: this.alarm('TickNotRunning', {
        metric: props.tickFunction.metricInvocations({
          period: Duration.minutes(5 * DISPATCH.tickPeriodMinutes),
          statistic: 'Sum',
        }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
        alarmDescription: 'No tick ran for five tick periods: is the EventBridge rule enabled?',
      }),
      fireLag: this.alarm('FireLagP99', {
        metric: metrics.worker('StartLag', 'p99', five),
        threshold: props.fireLagP99ThresholdMs,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        alarmDescription: `p99 of job start minus fire time above ${props.fireLagP99ThresholdMs} ms. Tasks at their maxRunningJobs, worker concurrency or a backlog delay starts.`,
      }),
      workerErrorRate: this.alarm('WorkerErrorRate', {
        metric: workerErrorRate,
        threshold: WORKER_ERROR_RATE_PERCENT,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        alarmDescription: `More than ${WORKER_ERROR_RATE_PERCENT}% of worker invocations failed as a whole (a crash or timeout, not a failing job).`,
      }),
      unreadableMessages: this.alarm('UnreadableMessages', {
        metric: metrics.worker('UnreadableMessages', 'Sum', five),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        alarmDescription:
          'The worker received job messages it cannot read (a version mismatch, or a foreign sender).',
      }),
    };

    if (props.dispatcherFunction) {
      const dispatcherFailures = new cloudwatch.MathExpression({
        expression: 'FILL(errors, 0) + FILL(throttles, 0) + FILL(reported, 0)',
        usingMetrics: {
          errors: props.dispatcherFunction.metricErrors({ period: tickPeriod, statistic: 'Sum' }),
          throttles: props.dispatcherFunction.metricThrottles({ period: tickPeriod, statistic: 'Sum' }),
          reported: metrics.dispatcher('DispatcherErrors', 'Sum', tickPeriod),
        },
        label: 'Dispatcher failures',
        period: tickPeriod,
      });
      this.alarms = {
        ...this.alarms,
        dispatcherErrors: this.alarm('DispatcherErrors', {
          metric: dispatcherFailures,
          threshold: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 3,
          datapointsToAlarm: 2,
          alarmDescription:
            'Dispatcher runs failed, were throttled, or reported errors in 2 of the last 3 tick periods: their shards wait for later ticks.',
        }),
      };
    }

    if (props.alarmTopic) {
      const action = new actions.SnsAction(props.alarmTopic);
      for (const alarm of Object.values(this.alarms)) {
        if (!alarm) continue;
        alarm.addAlarmAction(action);
        alarm.addOkAction(action);
      }
    }
  }

  /** Fires on the first message in a dead-letter queue. */
  private notEmptyAlarm(id: string, queue: sqs.IQueue, alarmDescription: string): cloudwatch.Alarm {
    return this.alarm(id, {
      metric: queue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      alarmDescription,
    });
  }

  private alarm(id: string, props: cloudwatch.AlarmProps): cloudwatch.Alarm {
    return new cloudwatch.Alarm(this, id, {
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      ...props,
    });
  }
}
