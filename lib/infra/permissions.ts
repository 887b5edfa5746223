import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
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
} from '../adapters/dynamodb/table-design';

/** DynamoDB item writes; transactions (`TransactWriteItems`) are authorised per item by these same actions. */
export type ItemWrite = 'dynamodb:PutItem' | 'dynamodb:UpdateItem' | 'dynamodb:DeleteItem';

/** What one Lambda may do to the table. There is never a `dynamodb:*` action nor a `*` resource. */
export interface TableAccess {
  /** Indexes it queries (by name, from the table design). */
  readonly queryIndexes: readonly string[];
  /** Item writes it makes. Reads (GetItem, BatchGetItem, ConditionCheckItem) are always granted. */
  readonly writes: readonly ItemWrite[];
  /**
   * Partition-key prefixes its writes are limited to (`dynamodb:LeadingKeys`), or none for any item.
   * IAM cannot look inside an item, so this is as fine as the table allows: by kind of item.
   */
  readonly writeKeyPrefixes?: readonly string[];
  /** Partition-key prefixes of the items it may delete besides `writes` (`dynamodb:LeadingKeys`). */
  readonly deleteKeyPrefixes?: readonly string[];
  /** Partition-key prefixes of the items it may put besides `writes` (`dynamodb:LeadingKeys`). */
  readonly putKeyPrefixes?: readonly string[];
  /** Partition-key prefixes of the table's own partitions it queries (`dynamodb:LeadingKeys`). */
  readonly queryKeyPrefixes?: readonly string[];
}

/**
 * The table access of each Lambda, from the store operations its code calls:
 * - tick: leaseDueShard, releaseDueShard (shard leases, ADR 0006), acquireDueJobs, markJobSent,
 *   findExpiredJobLeases, retryJob, repairCounters: queries `due`, `running` and `by-kind`, and only
 *   updates items (every such write is a conditional update); wakes waiting lines and resends overdue
 *   woken jobs (allTaskSlots, lineHead, wakeHeads, overdueWoken, markWokenResent; a reaped run's slot
 *   handed on, ADR 0009): queries, puts and deletes only in `TASK#` partitions. It dispatches no
 *   schedule itself: its dispatchers do.
 * - dispatcher: the notes of its shards (ADR 0007, 0008: readNoteCursor, createNoteCursor,
 *   moveNoteCursor, readDueNotes, readSchedules, writeDueNotes, finishSchedule), releaseDueShard,
 *   logFiresToSend, and the removal of a finished schedule by its closing note (ADR 0011: getSchedule,
 *   getJobRecord, removeFinishedSchedule): queries only `DUENOTES#` partitions; puts only `DUENOTES#`,
 *   `TASKFIRES#` and `REMOVED#` items (its notes, its tasks' fire logs, ADR 0001, and the removal
 *   record); deletes only `SCHEDULE#` items (a finished schedule whose last job ended, with a condition
 *   that it is still finished); only updates items otherwise (cursors, shard leases, and a schedule
 *   whose chain ended).
 * - worker: claimJob, finishJob, retryJob (slot taken, handed on or returned in the same
 *   transactions): updates job items (`JOB#`, and `FIRES#` for a schedule's fires) and `TASK#` items
 *   (LeadingKeys); a schedule only to count a started run of one with `max_runs` (startCappedRun, ADR
 *   0008); its task's waiting line (joinLine, lineHead, wakeHeads, releaseWoken, overdueWoken,
 *   markWokenResent, postponeWoken, isWaiting): queries, puts, updates and deletes only in `TASK#`
 *   partitions; which tasks are paused (allTaskSlots): queries `by-kind`. It never removes a schedule:
 *   a finished one is removed by its closing note (ADR 0011).
 * - admin: the admin API (add/update/pause/resume/remove schedules with their chains' first notes, add/
 *   cancel jobs, results, counts): every index, and the partitions its listings read (`FIRES#`: a
 *   schedule's fires, `TASKFIRES#`: a task's fire log, `TASK#`: a waiting line's length, `DUENOTES#`: a
 *   schedule's live note, ADR 0007); creates schedules, notes and jobs; deletes schedules (removing a
 *   schedule) and the first note of a chain whose first fires it sent itself.
 * - schedules (the reconcile of schedules declared in code, behind the stack's custom resource): the
 *   admin API's schedule actions only (list, get, add, update, remove, with their chains' first notes and
 *   the first fires they send): queries `by-kind` and the `DUENOTES#` partitions (live notes); puts
 *   `SCHEDULE#`, `DUENOTES#` and `TASKFIRES#` items (its chains' notes, the fire log of the fires it
 *   sends); updates `SCHEDULE#` and `DUECURSOR#` items; deletes `SCHEDULE#` items, the `REMOVED#` record
 *   a removal takes with it, and the first note of a chain whose first fires it sent itself.
 * The tick, the worker, the admin API and the reconcile publish events on the bus (`grantPublish`).
 * When a store operation starts using another call, update this table (docs/deploy.md, IAM summary):
 * `test/runtime/table-access.int.test.ts` runs each Lambda's operations under its grants.
 */
export const TABLE_ACCESS = {
  tick: {
    queryIndexes: [INDEX_NAMES.due, INDEX_NAMES.running, INDEX_NAMES.byKind],
    writes: ['dynamodb:UpdateItem'],
    deleteKeyPrefixes: [TASK_PREFIX],
    putKeyPrefixes: [TASK_PREFIX],
    queryKeyPrefixes: [TASK_PREFIX],
  },
  dispatcher: {
    queryIndexes: [],
    writes: ['dynamodb:UpdateItem'],
    deleteKeyPrefixes: [SCHEDULE_PREFIX],
    putKeyPrefixes: [TASK_FIRE_LOG_PREFIX, DUE_NOTES_PREFIX, REMOVED_SCHEDULE_PREFIX],
    queryKeyPrefixes: [DUE_NOTES_PREFIX],
  },
  worker: {
    queryIndexes: [INDEX_NAMES.byKind],
    writes: ['dynamodb:UpdateItem'],
    writeKeyPrefixes: [JOB_PREFIX, FIRE_JOB_PREFIX, TASK_PREFIX, SCHEDULE_PREFIX],
    deleteKeyPrefixes: [TASK_PREFIX],
    putKeyPrefixes: [TASK_PREFIX],
    queryKeyPrefixes: [TASK_PREFIX],
  },
  admin: {
    queryIndexes: GLOBAL_SECONDARY_INDEXES.map((index) => index.indexName),
    writes: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    queryKeyPrefixes: [FIRE_JOB_PREFIX, TASK_FIRE_LOG_PREFIX, TASK_PREFIX, DUE_NOTES_PREFIX],
  },
  schedules: {
    queryIndexes: [INDEX_NAMES.byKind],
    writes: ['dynamodb:UpdateItem'],
    writeKeyPrefixes: [SCHEDULE_PREFIX, DUE_CURSOR_PREFIX],
    putKeyPrefixes: [SCHEDULE_PREFIX, TASK_FIRE_LOG_PREFIX, DUE_NOTES_PREFIX],
    deleteKeyPrefixes: [SCHEDULE_PREFIX, REMOVED_SCHEDULE_PREFIX, DUE_NOTES_PREFIX],
    queryKeyPrefixes: [DUE_NOTES_PREFIX],
  },
} as const satisfies Record<string, TableAccess>;

const ITEM_READS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:ConditionCheckItem'];

/**
 * Grants one Lambda role its table access as a policy of its own (`<id>/DataAccess`), with the actions
 * listed: no `grant*ReadWriteData` helper, which would add Scan, BatchWriteItem and DeleteItem.
 */
export function grantTableAccess(
  scope: Construct,
  role: iam.IRole,
  table: dynamodb.ITable,
  access: TableAccess,
): iam.Policy {
  const statements = [
    new iam.PolicyStatement({ sid: 'ReadItems', actions: ITEM_READS, resources: [table.tableArn] }),
    new iam.PolicyStatement({
      sid: 'WriteItems',
      actions: [...access.writes],
      resources: [table.tableArn],
      ...(access.writeKeyPrefixes
        ? {
            conditions: {
              'ForAllValues:StringLike': {
                'dynamodb:LeadingKeys': access.writeKeyPrefixes.map((prefix) => `${prefix}*`),
              },
            },
          }
        : {}),
    }),
  ];
  if (access.deleteKeyPrefixes) {
    statements.push(
      leadingKeysStatement(table, 'DeleteItems', 'dynamodb:DeleteItem', access.deleteKeyPrefixes),
    );
  }
  if (access.putKeyPrefixes) {
    statements.push(leadingKeysStatement(table, 'PutItems', 'dynamodb:PutItem', access.putKeyPrefixes));
  }
  if (access.queryKeyPrefixes) {
    statements.push(
      leadingKeysStatement(table, 'QueryPartitions', 'dynamodb:Query', access.queryKeyPrefixes),
    );
  }
  if (access.queryIndexes.length > 0) {
    statements.push(
      new iam.PolicyStatement({
        sid: 'QueryIndexes',
        actions: ['dynamodb:Query'],
        resources: access.queryIndexes.map((name) => indexArn(table, name)),
      }),
    );
  }
  const policy = new iam.Policy(scope, 'DataAccess', { statements });
  policy.attachToRole(role);
  return policy;
}

/** One item write (or a query of the table), on partitions whose key starts with one of `prefixes` only. */
function leadingKeysStatement(
  table: dynamodb.ITable,
  sid: string,
  action: ItemWrite | 'dynamodb:Query',
  prefixes: readonly string[],
): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid,
    actions: [action],
    resources: [table.tableArn],
    conditions: {
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes.map((prefix) => `${prefix}*`) },
    },
  });
}

/** The ARN of one index: listed by name, never `…/index/*`. */
function indexArn(table: dynamodb.ITable, indexName: string): string {
  return `${table.tableArn}/index/${indexName}`;
}

/** Queue access of the Lambdas that send jobs but never consume them (tick, admin): both job queues. */
export function grantSend(role: iam.IRole, ...queues: sqs.IQueue[]): void {
  for (const queue of queues) queue.grantSendMessages(role);
}

/**
 * The worker's queue access beyond what its event sources grant (receive, delete, change visibility —
 * the worker hides messages of tasks at their limit): it sends retries, wakes waiting jobs and re-sends
 * early messages to both job queues, and moves a message it cannot read straight to the dead-letter
 * queue (send only: it never reads it).
 */
export function grantWorkerQueue(
  role: iam.IRole,
  queues: readonly sqs.IQueue[],
  deadLetterQueue: sqs.IQueue,
): void {
  for (const queue of queues) queue.grantSendMessages(role);
  deadLetterQueue.grantSendMessages(role);
}

/** `events:PutEvents` on the one bus, for job and schedule events. */
export function grantPublish(role: iam.IRole, bus: events.IEventBus): void {
  bus.grantPutEventsTo(role);
}

/**
 * The tick may invoke the dispatcher Lambda and nothing else: `lambda:InvokeFunction` on its ARN
 * (unqualified: no version or alias wildcard).
 */
export function grantInvokeDispatcher(role: iam.IRole, dispatcher: lambda.IFunction): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'InvokeDispatcher',
      actions: ['lambda:InvokeFunction'],
      resources: [dispatcher.functionArn],
    }),
  );
}
