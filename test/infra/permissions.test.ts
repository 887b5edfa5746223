import { beforeAll, describe, expect, it } from 'vitest';
import {
  FIRE_JOB_PREFIX,
  GLOBAL_SECONDARY_INDEXES,
  INDEX_NAMES,
  JOB_PREFIX,
  REMOVED_SCHEDULE_PREFIX,
  SCHEDULE_PREFIX,
  TASK_PREFIX,
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
let ids: { table: string; queue: string; critical: string; dlq: string; bus: string };
beforeAll(() => {
  synth = defaultStack();
  ids = {
    table: logicalId(synth.template, 'AWS::DynamoDB::Table', 'SundialTable'),
    queue: logicalId(synth.template, 'AWS::SQS::Queue', 'SundialQueuesJobsQueue'),
    critical: logicalId(synth.template, 'AWS::SQS::Queue', 'SundialQueuesCriticalJobsQueue'),
    dlq: logicalId(synth.template, 'AWS::SQS::Queue', 'SundialQueuesDeadLetterQueue'),
    bus: logicalId(synth.template, 'AWS::Events::EventBus', 'SundialEventBus'),
  };
}, SYNTH_TIMEOUT_MS);

function statementsOf(fn: 'Tick' | 'Worker' | 'Admin'): Statement[] {
  return roleStatements(synth.template, fn);
}

const allActions = (statements: Statement[]) => statements.flatMap((statement) => statement.actions);
const tableArn = () => ({ 'Fn::GetAtt': [ids.table, 'Arn'] });
const indexArn = (name: string) => ({ 'Fn::Join': ['', [tableArn(), `/index/${name}`]] });
const queueArn = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });

/** The resources a function may call `action` on, in a stable order (the policies are minimized and sorted). */
function resourcesFor(statements: Statement[], action: string): unknown[] {
  return sorted(
    statements
      .filter((statement) => statement.actions.includes(action))
      .flatMap((statement) => statement.resources),
  );
}

function sorted(values: unknown[]): unknown[] {
  return [...values].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

describe('every role', () => {
  it('has no dynamodb:* nor any wildcard DynamoDB action, and never "*" as a DynamoDB resource', () => {
    for (const fn of ['Tick', 'Worker', 'Admin'] as const) {
      const dynamo = statementsOf(fn).filter((statement) =>
        statement.actions.some((action) => action.startsWith('dynamodb:')),
      );
      expect(allActions(dynamo).filter((action) => action.includes('*'))).toEqual([]);
      expect(
        dynamo
          .flatMap((statement) => statement.resources)
          .filter((resource) => JSON.stringify(resource).includes('*')),
      ).toEqual([]);
    }
  });

  it('uses "*" only for the X-Ray actions, which have no resource-level permissions', () => {
    for (const fn of ['Tick', 'Worker', 'Admin'] as const) {
      const wildcard = statementsOf(fn).filter((statement) => statement.resources.includes('*'));
      expect(allActions(wildcard).sort()).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
    }
  });

  it('carries no managed policy and writes only to its own log group', () => {
    for (const role of Object.values(resourcesOf(synth.template, 'AWS::IAM::Role'))) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
    for (const fn of ['Tick', 'Worker', 'Admin'] as const) {
      const logs = logicalId(synth.template, 'AWS::Logs::LogGroup', `Sundial${fn}Logs`);
      expect(resourcesFor(statementsOf(fn), 'logs:PutLogEvents')).toEqual([{ 'Fn::GetAtt': [logs, 'Arn'] }]);
    }
  });
});

describe('tick', () => {
  it('queries only the due, running and by-kind indexes, and only updates items', () => {
    const statements = statementsOf('Tick');

    expect(resourcesFor(statements, 'dynamodb:Query')).toEqual(
      sorted([INDEX_NAMES.due, INDEX_NAMES.running, INDEX_NAMES.byKind].map(indexArn)),
    );
    expect(resourcesFor(statements, 'dynamodb:UpdateItem')).toEqual([tableArn()]);
    expect(allActions(statements)).not.toContain('dynamodb:PutItem');
    expect(allActions(statements)).not.toContain('dynamodb:DeleteItem');
  });

  it('sends to the jobs queue and the critical queue and never consumes from them', () => {
    const statements = statementsOf('Tick');

    expect(resourcesFor(statements, 'sqs:SendMessage')).toEqual(
      sorted([queueArn(ids.queue), queueArn(ids.critical)]),
    );
    expect(
      allActions(statements).filter((action) =>
        /^sqs:(ReceiveMessage|DeleteMessage|ChangeMessageVisibility)/.test(action),
      ),
    ).toEqual([]);
  });
});

describe('worker', () => {
  it('updates only job and task-counter items, deletes only schedules, puts only removal records (dynamodb:LeadingKeys)', () => {
    const statements = statementsOf('Worker');
    const writes = statements.filter((statement) =>
      statement.actions.some((action) => /^dynamodb:(Put|Update|Delete)Item$/.test(action)),
    );

    expect(writes).toEqual([
      {
        actions: ['dynamodb:UpdateItem'],
        resources: [tableArn()],
        condition: {
          'ForAllValues:StringLike': {
            'dynamodb:LeadingKeys': [`${JOB_PREFIX}*`, `${FIRE_JOB_PREFIX}*`, `${TASK_PREFIX}*`],
          },
        },
      },
      {
        // A finished schedule, once its last job ended (docs/adr/0004-finished-schedules.md).
        actions: ['dynamodb:DeleteItem'],
        resources: [tableArn()],
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${SCHEDULE_PREFIX}*`] } },
      },
      {
        // The removal record written with that delete, in the same transaction (ADR 0004).
        actions: ['dynamodb:PutItem'],
        resources: [tableArn()],
        condition: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${REMOVED_SCHEDULE_PREFIX}*`] },
        },
      },
    ]);
    expect(allActions(statements)).not.toContain('dynamodb:Query');
  });

  it('consumes both job queues (receive, delete, change visibility) and sends retries and wake-ups to them', () => {
    const statements = statementsOf('Worker');
    const both = sorted([queueArn(ids.queue), queueArn(ids.critical)]);

    for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']) {
      expect(resourcesFor(statements, action), action).toEqual(both);
    }
    expect(resourcesFor(statements, 'sqs:SendMessage')).toEqual(expect.arrayContaining(both));
  });

  it('may send unreadable messages to the DLQ, but never reads or deletes there', () => {
    const statements = statementsOf('Worker');

    expect(resourcesFor(statements, 'sqs:SendMessage')).toEqual(
      sorted([queueArn(ids.queue), queueArn(ids.critical), queueArn(ids.dlq)]),
    );
    for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']) {
      expect(resourcesFor(statements, action), action).not.toContainEqual(queueArn(ids.dlq));
    }
  });

  it('publishes events to the bus, and only there (the tick and the admin API too: schedule events)', () => {
    for (const name of ['Worker', 'Tick', 'Admin'] as const) {
      expect(resourcesFor(statementsOf(name), 'events:PutEvents'), name).toEqual([
        { 'Fn::GetAtt': [ids.bus, 'Arn'] },
      ]);
    }
  });
});

describe('admin', () => {
  it('reads and writes the table, queries every index, and deletes any item (the worker only schedules)', () => {
    const statements = statementsOf('Admin');

    expect(resourcesFor(statements, 'dynamodb:Query')).toEqual(
      sorted(GLOBAL_SECONDARY_INDEXES.map((index) => indexArn(index.indexName))),
    );
    for (const action of [
      'dynamodb:GetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
    ]) {
      expect(resourcesFor(statements, action), action).toEqual([tableArn()]);
    }
    expect(allActions(statements)).not.toContain('dynamodb:Scan');
    expect(allActions(statements)).not.toContain('dynamodb:BatchWriteItem');
  });

  it('sends to the jobs queue and the critical queue but cannot receive, delete or hide messages', () => {
    const actions = allActions(statementsOf('Admin'));

    expect(resourcesFor(statementsOf('Admin'), 'sqs:SendMessage')).toEqual(
      sorted([queueArn(ids.queue), queueArn(ids.critical)]),
    );
    expect(actions).not.toContain('sqs:ReceiveMessage');
    expect(actions).not.toContain('sqs:DeleteMessage');
    expect(actions).not.toContain('sqs:ChangeMessageVisibility');
  });
});
