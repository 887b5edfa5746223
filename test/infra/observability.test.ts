import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { EMF } from '../../lib/infra/metrics';
import { PROJECT_ROOT } from '../../lib/infra/sundial';
import { customizedStack, logicalId, resourcesOf, SYNTH_TIMEOUT_MS, type Synthesized } from './support';

let synth: Synthesized;
let topic: string;
beforeAll(() => {
  // an alarm topic and a 3 s fire-lag threshold; the tick runs every minute
  synth = customizedStack();
  topic = logicalId(synth.template, 'AWS::SNS::Topic', 'Alerts');
}, SYNTH_TIMEOUT_MS);

describe('alarms', () => {
  it('notify the alarm topic on ALARM and on OK, every one of them', () => {
    const alarms = Object.values(resourcesOf(synth.template, 'AWS::CloudWatch::Alarm'));

    expect(alarms).toHaveLength(9); // with the critical queue's DLQ (ADR 0003) and the dispatcher's (ADR 0006)
    for (const alarm of alarms) {
      expect(alarm.Properties).toMatchObject({ AlarmActions: [{ Ref: topic }], OKActions: [{ Ref: topic }] });
    }
  });

  it.each(['SundialQueuesDeadLetterQueue', 'SundialQueuesCriticalDeadLetterQueue'])(
    'fire on the first dead-lettered job message (%s)',
    (queue) => {
      const dlq = logicalId(synth.template, 'AWS::SQS::Queue', queue);

      synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq, 'QueueName'] } }],
        Statistic: 'Maximum',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
      });
    },
  );

  it('fire on tick errors, throttles or reported errors in 2 of 3 tick periods', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('^Tick runs failed'),
      Metrics: Match.arrayWith([
        Match.objectLike({ Expression: 'FILL(errors, 0) + FILL(throttles, 0) + FILL(reported, 0)' }),
        Match.objectLike({
          Id: 'errors',
          MetricStat: Match.objectLike({
            Period: 60,
            Metric: Match.objectLike({ MetricName: 'Errors' }),
          }),
        }),
        Match.objectLike({
          Id: 'throttles',
          MetricStat: Match.objectLike({ Metric: Match.objectLike({ MetricName: 'Throttles' }) }),
        }),
        Match.objectLike({
          Id: 'reported',
          MetricStat: Match.objectLike({
            Metric: Match.objectLike({ Namespace: 'Sundial', MetricName: 'TickErrors' }),
          }),
        }),
      ]),
      Threshold: 1,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
    });
  });

  it('fire when no tick ran for five tick periods, treating missing data as breaching', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Invocations',
      Period: 5 * 60,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
  });

  it('fire when the p99 fire lag (job start − fire time, EMF) passes the threshold', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'Sundial',
      MetricName: 'StartLag',
      Dimensions: [{ Name: 'Service', Value: 'worker' }],
      ExtendedStatistic: 'p99',
      Threshold: 3000,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  it('fire when more than 5% of worker invocations fail', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: Match.arrayWith([
        Match.objectLike({ Expression: 'IF(invocations > 0, 100 * FILL(errors, 0) / invocations, 0)' }),
      ]),
      Threshold: 5,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  it('fire on the first unreadable job message', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'Sundial',
      MetricName: 'UnreadableMessages',
      Threshold: 1,
    });
  });
});

describe('dashboard', () => {
  it('shows jobs by outcome, fire lag, running jobs per task, queue depth and age, and the alarms', () => {
    const dashboards = Object.values(resourcesOf(synth.template, 'AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0]?.Properties.DashboardBody);

    for (const title of [
      'Jobs by outcome (per minute)',
      'Fire lag (ms)',
      'Running jobs per task',
      'Jobs queue depth',
      'Jobs queue age (s)',
      'Alarms',
    ]) {
      expect(body).toContain(`\\"title\\":\\"${title}\\"`);
    }
    expect(body).toContain('SEARCH(');
    expect(body).toContain('ApproximateAgeOfOldestMessage');
    expect(body).toContain('oldest critical message');
  });
});

describe('EMF metric names', () => {
  /** The alarms and the dashboard read metrics by name: they must be the names the runtime writes. */
  it.each([
    ['tick', 'lib/runtime/handlers/tick.ts', EMF.tick],
    ['worker', 'lib/runtime/handlers/worker.ts', EMF.worker],
    ['dispatcher', 'lib/runtime/handlers/dispatcher.ts', EMF.dispatcher],
  ] as const)('match what the %s handler writes', (_service, file, metrics) => {
    const source = readFileSync(join(PROJECT_ROOT, file), 'utf8');

    expect(source).toContain(`{ Service: '${metrics.dimensions.Service}' }`);
    for (const name of metrics.names) expect(source).toContain(`name: '${name}'`);
  });
});
