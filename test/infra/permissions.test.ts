import { beforeAll, describe, expect, it } from 'vitest';
import {
  DUE_CURSOR_PREFIX,
  DUE_NOTES_PREFIX,
  FIRE_JOB_PREFIX,
  GLOBAL_SECONDARY_INDEXES,
  INDEX_NAMES,
  JOB_PREFIX,
  REMOVED_SCHEDULE_PREFIX,
  SCHEDULE_PREFIX,
  TASK_FIRE_LOG_PREFIX,
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

function statementsOf(fn: 'Tick' | 'Worker' | 'Admin' | 'Schedules'): Statement[] {
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

/** The partitions (`dynamodb:LeadingKeys`) a function may call `action` on in the table itself. */
function partitionsFor(statements: Statement[], action: string): unknown[] {
  return statements
    .filter(
      (statement) =>
        statement.actions.includes(action) &&
        statement.resources.some((resource) => JSON.stringify(resource) === JSON.stringify(tableArn())),
    )
    .map((statement) => {
      const like = statement.condition?.['ForAllValues:StringLike'] as Record<string, unknown> | undefined;
      return like?.['dynamodb:LeadingKeys'] ?? 'any';
    });
}

function sorted(values: unknown[]): unknown[] {
  return [...values].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

describe('every role', () => {
  it('has no dynamodb:* nor any wildcard DynamoDB action, and never "*" as a DynamoDB resource', () => {
    for (const fn of ['Tick', 'Worker', 'Admin', 'Schedules'] as const) {
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
    for (const fn of ['Tick', 'Worker', 'Admin', 'Schedules'] as const) {
      const wildcard = statementsOf(fn).filter((statement) => statement.resources.includes('*'));
      expect(allActions(wildcard).sort()).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
    }
  });

  it('carries no managed policy and writes only to its own log group', () => {
    for (const role of Object.values(resourcesOf(synth.template, 'AWS::IAM::Role'))) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
    for (const fn of ['Tick', 'Worker', 'Admin', 'Schedules'] as const) {
      const logs = logicalId(synth.template, 'AWS::Logs::LogGroup', `Sundial${fn}Logs`);
      expect(resourcesFor(statementsOf(fn), 'logs:PutLogEvents')).toEqual([{ 'Fn::GetAtt': [logs, 'Arn'] }]);
    }
  });
});

describe('tick', () => {
  it('queries the due (parked jobs), running and by-kind indexes and task partitions, updates items, puts only line entries: the dispatchers read and write the due notes (ADR 0008)', () => {
    const statements = statementsOf('Tick');

    expect(resourcesFor(statements, 'dynamodb:Query')).toEqual(
      sorted([tableArn(), ...[INDEX_NAMES.due, INDEX_NAMES.running, INDEX_NAMES.byKind].map(indexArn)]),
    );
    // Waiting lines (TASK#): entries read, woken (a reaped run's slot handed on, ADR 0009) and deleted
    expect(partitionsFor(statements, 'dynamodb:Query')).toEqual([[`${TASK_PREFIX}*`]]);
    expect(partitionsFor(statements, 'dynamodb:DeleteItem')).toEqual([[`${TASK_PREFIX}*`]]);
    expect(partitionsFor(statements, 'dynamodb:PutItem')).toEqual([[`${TASK_PREFIX}*`]]);
    expect(partitionsFor(statements, 'dynamodb:UpdateItem')).toEqual(['any']);
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
  it('updates only job, task and schedule items, deletes and puts only waiting-line entries: it never removes a schedule (dynamodb:LeadingKeys)', () => {
    const statements = statementsOf('Worker');

    // A schedule's item only to count a started run of one with max_runs (ADR 0008)
    expect(partitionsFor(statements, 'dynamodb:UpdateItem')).toEqual([
      [`${JOB_PREFIX}*`, `${FIRE_JOB_PREFIX}*`, `${TASK_PREFIX}*`, `${SCHEDULE_PREFIX}*`],
    ]);
    // A waiting-line entry, once woken; a job joining its task's line. A finished schedule is removed by
    // its closing note, read by a dispatcher (ADR 0011).
    expect(partitionsFor(statements, 'dynamodb:DeleteItem')).toEqual([[`${TASK_PREFIX}*`]]);
    expect(partitionsFor(statements, 'dynamodb:PutItem')).toEqual([[`${TASK_PREFIX}*`]]);
    // Its task's waiting line, in the task's partition; which tasks are paused, from the counters
    expect(partitionsFor(statements, 'dynamodb:Query')).toEqual([[`${TASK_PREFIX}*`]]);
    expect(resourcesFor(statements, 'dynamodb:Query')).toEqual(
      sorted([tableArn(), indexArn(INDEX_NAMES.byKind)]),
    );
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
    for (const name of ['Worker', 'Tick', 'Admin', 'Schedules'] as const) {
      expect(resourcesFor(statementsOf(name), 'events:PutEvents'), name).toEqual([
        { 'Fn::GetAtt': [ids.bus, 'Arn'] },
      ]);
    }
  });
});

describe('admin', () => {
  it("reads and writes the table, queries every index and its listings' partitions, and deletes any item", () => {
    const statements = statementsOf('Admin');

    expect(resourcesFor(statements, 'dynamodb:Query')).toEqual(
      sorted([tableArn(), ...GLOBAL_SECONDARY_INDEXES.map((index) => indexArn(index.indexName))]),
    );
    // The partitions its listings read: a schedule's fires, a task's fire log, a waiting line's length
    expect(partitionsFor(statements, 'dynamodb:Query')).toEqual([
      [`${FIRE_JOB_PREFIX}*`, `${TASK_FIRE_LOG_PREFIX}*`, `${TASK_PREFIX}*`, `${DUE_NOTES_PREFIX}*`],
    ]);
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

describe('schedules (the reconcile of schedules declared in code)', () => {
  it('writes only schedule items, their chains’ notes and cursors, fire logs and removal records, and queries by-kind and due notes (dynamodb:LeadingKeys)', () => {
    const statements = statementsOf('Schedules');

    expect(partitionsFor(statements, 'dynamodb:UpdateItem')).toEqual([
      [`${SCHEDULE_PREFIX}*`, `${DUE_CURSOR_PREFIX}*`],
    ]);
    expect(partitionsFor(statements, 'dynamodb:PutItem')).toEqual([
      [`${SCHEDULE_PREFIX}*`, `${TASK_FIRE_LOG_PREFIX}*`, `${DUE_NOTES_PREFIX}*`],
    ]);
    expect(partitionsFor(statements, 'dynamodb:DeleteItem')).toEqual([
      [`${SCHEDULE_PREFIX}*`, `${REMOVED_SCHEDULE_PREFIX}*`, `${DUE_NOTES_PREFIX}*`],
    ]);
    expect(partitionsFor(statements, 'dynamodb:Query')).toEqual([[`${DUE_NOTES_PREFIX}*`]]);
    expect(resourcesFor(statements, 'dynamodb:Query')).toEqual(
      sorted([tableArn(), indexArn(INDEX_NAMES.byKind)]),
    );
  });

  it('sends a new schedule’s first fires to the job queues, and consumes nothing', () => {
    const statements = statementsOf('Schedules');

    expect(resourcesFor(statements, 'sqs:SendMessage')).toEqual(
      sorted([queueArn(ids.queue), queueArn(ids.critical)]),
    );
    expect(
      allActions(statements).filter((action) => /^(sqs:Receive|sqs:Delete|lambda:)/.test(action)),
    ).toEqual([]);
  });
});
