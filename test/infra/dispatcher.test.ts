import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DUE_NOTES_PREFIX,
  REMOVED_SCHEDULE_PREFIX,
  SCHEDULE_PREFIX,
  TASK_FIRE_LOG_PREFIX,
} from '../../lib/adapters/dynamodb/table-design';
import {
  defaultStack,
  logicalId,
  resourcesOf,
  roleStatements,
  type Statement,
  SYNTH_TIMEOUT_MS,
  type Synthesized,
} from './support';

let synth: Synthesized;
let ids: { table: string; queue: string; critical: string; bus: string; dispatcher: string; tick: string };
beforeAll(() => {
  synth = defaultStack();
  ids = {
    table: logicalId(synth.template, 'AWS::DynamoDB::Table', 'SundialTable'),
    queue: logicalId(synth.template, 'AWS::SQS::Queue', 'SundialQueuesJobsQueue'),
    critical: logicalId(synth.template, 'AWS::SQS::Queue', 'SundialQueuesCriticalJobsQueue'),
    bus: logicalId(synth.template, 'AWS::Events::EventBus', 'SundialEventBus'),
    dispatcher: logicalId(synth.template, 'AWS::Lambda::Function', 'SundialDispatcherFunction'),
    tick: logicalId(synth.template, 'AWS::Lambda::Function', 'SundialTickFunction'),
  };
}, SYNTH_TIMEOUT_MS);

/** The environment variables of the function `id`. */
function variablesOf(template: Template, id: string): Record<string, unknown> {
  const environment = resourcesOf(template, 'AWS::Lambda::Function')[id]?.Properties.Environment as
    | { Variables: Record<string, unknown> }
    | undefined;
  return environment?.Variables ?? {};
}

const actionsOf = (statements: Statement[]) => statements.flatMap((statement) => statement.actions);
const resourcesFor = (statements: Statement[], action: string) =>
  statements
    .filter((statement) => statement.actions.includes(action))
    .flatMap((statement) => statement.resources);
const tableArn = () => ({ 'Fn::GetAtt': [ids.table, 'Arn'] });

describe('dispatcher (ADR 0006)', () => {
  it("is a Lambda with the tick's timeout and the deployed defaults, no retries of its asynchronous invocations, and events dropped after a minute", () => {
    const dispatcher = resourcesOf(synth.template, 'AWS::Lambda::Function')[ids.dispatcher]?.Properties;

    expect(dispatcher).toMatchObject({ Timeout: 60, Handler: 'index.handler' });
    expect(variablesOf(synth.template, ids.dispatcher)).toMatchObject({ SUNDIAL_SHARDS: '16' });
    // The tick's budget is the runtime's own default (ADR 0008: one configuration): nothing overrides it.
    expect(variablesOf(synth.template, ids.dispatcher)).not.toHaveProperty('SUNDIAL_TICK_BUDGET_MS');
    synth.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: ids.dispatcher },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
    });
  });

  it('is named to the tick with the number of dispatchers (8 by default)', () => {
    expect(variablesOf(synth.template, ids.tick)).toMatchObject({
      SUNDIAL_DISPATCHERS: '8',
      SUNDIAL_DISPATCHER_FUNCTION: { Ref: ids.dispatcher },
    });
  });

  it('may be invoked by the tick, which may invoke nothing else; no other role invokes a Lambda', () => {
    expect(resourcesFor(roleStatements(synth.template, 'Tick'), 'lambda:InvokeFunction')).toEqual([
      { 'Fn::GetAtt': [ids.dispatcher, 'Arn'] },
    ]);
    expect(actionsOf(roleStatements(synth.template, 'Tick')).filter((a) => a.startsWith('lambda:'))).toEqual([
      'lambda:InvokeFunction',
    ]);
    for (const fn of ['Dispatcher', 'Worker', 'Admin'] as const) {
      expect(
        actionsOf(roleStatements(synth.template, fn)).filter((a) => a.startsWith('lambda:')),
        fn,
      ).toEqual([]);
    }
  });

  it('queries only due-note partitions and no index, updates items, puts only fire logs, due notes and removal records, deletes only schedules, sends to the two job queues and publishes on the bus', () => {
    const statements = roleStatements(synth.template, 'Dispatcher');

    expect(resourcesFor(statements, 'dynamodb:Query')).toEqual([tableArn()]);
    // The table itself only in its shards' due-note partitions (ADR 0007, ADR 0008)
    const tableQueries = statements.filter(
      (statement) => statement.actions.includes('dynamodb:Query') && statement.condition !== undefined,
    );
    expect(tableQueries.map((statement) => statement.condition)).toEqual([
      { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${DUE_NOTES_PREFIX}*`] } },
    ]);
    expect(resourcesFor(statements, 'dynamodb:UpdateItem')).toEqual([tableArn()]);
    // A critical schedule's fires go to the critical queue.
    expect(resourcesFor(statements, 'sqs:SendMessage')).toHaveLength(2);
    expect(resourcesFor(statements, 'sqs:SendMessage')).toEqual(
      expect.arrayContaining([{ 'Fn::GetAtt': [ids.queue, 'Arn'] }, { 'Fn::GetAtt': [ids.critical, 'Arn'] }]),
    );
    expect(resourcesFor(statements, 'events:PutEvents')).toEqual([{ 'Fn::GetAtt': [ids.bus, 'Arn'] }]);
    const actions = actionsOf(statements);
    // Only its tasks' fire logs, noted before each round is sent (ADR 0001), due notes (ADR 0007), and the
    // removal record of a finished schedule its closing note removes (ADR 0011)
    const puts = statements.filter((statement) => statement.actions.includes('dynamodb:PutItem'));
    expect(puts.map((statement) => statement.condition)).toEqual([
      {
        'ForAllValues:StringLike': {
          'dynamodb:LeadingKeys': [
            `${TASK_FIRE_LOG_PREFIX}*`,
            `${DUE_NOTES_PREFIX}*`,
            `${REMOVED_SCHEDULE_PREFIX}*`,
          ],
        },
      },
    ]);
    // That finished schedule itself, and nothing else
    const deletes = statements.filter((statement) => statement.actions.includes('dynamodb:DeleteItem'));
    expect(deletes.map((statement) => statement.condition)).toEqual([
      { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${SCHEDULE_PREFIX}*`] } },
    ]);
    for (const forbidden of ['dynamodb:Scan', 'sqs:ReceiveMessage']) {
      expect(actions).not.toContain(forbidden);
    }
    const wildcard = statements.filter((statement) => statement.resources.includes('*'));
    expect(actionsOf(wildcard).sort()).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
  });
});

describe('dispatcher alarm', () => {
  it('fires on dispatcher errors, throttles or reported errors in 2 of 3 tick periods', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('^Dispatcher runs failed'),
      Metrics: Match.arrayWith([
        Match.objectLike({ Expression: 'FILL(errors, 0) + FILL(throttles, 0) + FILL(reported, 0)' }),
        Match.objectLike({
          Id: 'errors',
          MetricStat: Match.objectLike({
            Metric: Match.objectLike({
              MetricName: 'Errors',
              Dimensions: [{ Name: 'FunctionName', Value: { Ref: ids.dispatcher } }],
            }),
          }),
        }),
        Match.objectLike({
          Id: 'reported',
          MetricStat: Match.objectLike({
            Metric: Match.objectLike({ Namespace: 'Sundial', MetricName: 'DispatcherErrors' }),
          }),
        }),
      ]),
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
    });
  });
});

describe('dashboard', () => {
  it("shows the dispatchers' work and the dispatcher Lambda's errors, throttles and duration", () => {
    const dashboards = Object.values(resourcesOf(synth.template, 'AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboards[0]?.Properties.DashboardBody);

    expect(body).toContain('schedules processed by dispatchers');
    expect(body).toContain('dispatcher errors');
    expect(body).toContain('dispatcher throttles');
  });
});
