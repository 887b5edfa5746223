import type { AttributeValue, ConsumedCapacity, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { plainItem } from '../../lib/adapters/dynamodb/attribute-values';
import { itemSizeBytes, writeUnitsForSize } from './item-size';

/** Who a request's capacity is charged to: a fired job, its schedule, the end of a schedule, the rest. */
export type CostKind = 'job' | 'schedule' | 'scheduleEnd' | 'other';

export interface CapacityTotals {
  calls: number;
  readUnits: number;
  /** Every write unit billed: successful writes, their index writes, and failed conditional writes. */
  writeUnits: number;
  /** Write units spent on global secondary indexes (included in `writeUnits`). */
  indexWriteUnits: number;
  /** Writes refused on their condition (single writes and cancelled transactions). */
  failedWrites: number;
  /** What those refused writes are billed (included in `writeUnits`). */
  failedWriteUnits: number;
}

/** DynamoDB Local 1.25.1 reports transactional writes at twice what AWS bills (measured in test/bench). */
export const DYNAMODB_LOCAL_TRANSACTION_REPORT_SCALE = 2;

const COST_KINDS: readonly CostKind[] = ['job', 'schedule', 'scheduleEnd', 'other'];

/** The partitions of each kind of item, by their key's prefix (lib/adapters/dynamodb/table-design.ts). */
const JOB_PREFIXES = ['FIRES#', 'JOB#', 'TASKFIRES#'];
const SCHEDULE_PREFIXES = ['DUENOTES#', 'DUECURSOR#', 'SHARDLEASE#', 'SCHEDULE#'];

type RawItem = Record<string, AttributeValue>;
type Input = Record<string, unknown>;

/**
 * What AWS would bill a benchmark, counted on the DynamoDB client (a middleware: the store knows nothing
 * of it): every request asks for `ReturnConsumedCapacity: INDEXES`; transactions count 2 units per KB
 * and item (`transactionReportScale` undoes DynamoDB Local's 4) and 2 per ConditionCheck (an upper
 * bound: Local reports none); a write refused on its condition is billed by the size of the item it
 * was refused on (at least one unit), which DynamoDB bills but reports nowhere. Each request is charged
 * to the kind of item it writes (or reads) first: a fire's job and its task's fire log, a schedule (its
 * notes, cursors, shard leases and item), the removal of a finished schedule, the rest.
 */
export class CapacityMeter {
  private readonly totals = new Map<CostKind, CapacityTotals>();
  private readonly transactionReportScale: number;

  constructor(options: { transactionReportScale?: number } = {}) {
    this.transactionReportScale = options.transactionReportScale ?? 1;
  }

  /** Counts every request `client` sends from now on (and the requests of document clients built on it). */
  attach<T extends DynamoDBClient>(client: T): T {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const command = context.commandName ?? '';
        const input = args.input as Input;
        const metered = isMetered(command);
        if (metered) input.ReturnConsumedCapacity = 'INDEXES';
        const kind = kindOf(command, input);
        try {
          const output = await next(args);
          if (metered) this.record(kind, command, input, output.output as { ConsumedCapacity?: unknown });
          return output;
        } catch (error) {
          const units = failedWriteUnits(error, input);
          if (units !== undefined) this.recordFailedWrite(kind, units);
          throw error;
        }
      },
      { step: 'initialize', name: 'benchCapacityMeter' },
    );
    return client;
  }

  /** Totals per kind, and `total` over all of them. */
  snapshot(): Record<CostKind | 'total', CapacityTotals> {
    const total = emptyTotals();
    const result = { total } as Record<CostKind | 'total', CapacityTotals>;
    for (const kind of COST_KINDS) {
      const totals = { ...(this.totals.get(kind) ?? emptyTotals()) };
      result[kind] = totals;
      for (const key of Object.keys(total) as (keyof CapacityTotals)[]) total[key] += totals[key];
    }
    return result;
  }

  reset(): void {
    this.totals.clear();
  }

  private record(
    kind: CostKind,
    command: string,
    input: Input,
    output: { ConsumedCapacity?: unknown },
  ): void {
    const totals = this.entry(kind);
    totals.calls += 1;
    const consumed = output.ConsumedCapacity;
    const entries = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) as ConsumedCapacity[];
    const transaction = command === 'TransactWriteItemsCommand';
    const scale = transaction ? this.transactionReportScale : 1;
    for (const entry of entries) {
      const index = indexUnits(entry) / scale;
      const units = (entry.CapacityUnits ?? (entry.Table?.CapacityUnits ?? 0) + indexUnits(entry)) / scale;
      if (isRead(command)) totals.readUnits += units;
      else {
        totals.writeUnits += units;
        totals.indexWriteUnits += index;
      }
    }
    if (transaction)
      totals.writeUnits += 2 * transactItems(input).filter((item) => item.ConditionCheck).length;
  }

  private recordFailedWrite(kind: CostKind, units: number): void {
    const totals = this.entry(kind);
    totals.calls += 1;
    totals.failedWrites += 1;
    totals.failedWriteUnits += units;
    totals.writeUnits += units;
  }

  private entry(kind: CostKind): CapacityTotals {
    let totals = this.totals.get(kind);
    if (!totals) {
      totals = emptyTotals();
      this.totals.set(kind, totals);
    }
    return totals;
  }
}

export function emptyTotals(): CapacityTotals {
  return { calls: 0, readUnits: 0, writeUnits: 0, indexWriteUnits: 0, failedWrites: 0, failedWriteUnits: 0 };
}

const READS = ['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'ScanCommand'];
const WRITES = [
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'TransactWriteItemsCommand',
  'BatchWriteItemCommand',
];

function isRead(command: string): boolean {
  return READS.includes(command);
}

function isMetered(command: string): boolean {
  return isRead(command) || WRITES.includes(command);
}

/** The kind of the first item a request reads or writes, by its partition key (and, for a delete, the removal of a schedule). */
function kindOf(command: string, input: Input): CostKind {
  if (command === 'QueryCommand') {
    if (input.IndexName !== undefined) return 'other';
    const values = Object.values((input.ExpressionAttributeValues ?? {}) as Record<string, unknown>);
    return kindOfKey(
      values.map(text).find((value) => value?.includes('#')),
      false,
    );
  }
  const first = transactItems(input)[0] ?? batchItem(input) ?? input;
  const deletes =
    command === 'DeleteItemCommand' || first.Delete !== undefined || first.DeleteRequest !== undefined;
  const body = (first.Put ??
    first.Update ??
    first.Delete ??
    first.ConditionCheck ??
    first.PutRequest ??
    first.DeleteRequest ??
    first) as Input;
  const key = (body.Item ?? body.Key) as Record<string, unknown> | undefined;
  return kindOfKey(text(key?.pk), deletes);
}

function kindOfKey(pk: string | undefined, deletes: boolean): CostKind {
  if (pk === undefined) return 'other';
  if (pk.startsWith('REMOVED#') || (deletes && pk.startsWith('SCHEDULE#'))) return 'scheduleEnd';
  if (JOB_PREFIXES.some((prefix) => pk.startsWith(prefix))) return 'job';
  if (SCHEDULE_PREFIXES.some((prefix) => pk.startsWith(prefix))) return 'schedule';
  return 'other';
}

/** A key attribute as text, marshalled (`{ S: … }`) or not. */
function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  const marshalled = (value as { S?: unknown } | undefined)?.S;
  return typeof marshalled === 'string' ? marshalled : undefined;
}

function transactItems(input: Input): Input[] {
  return (input.TransactItems ?? []) as Input[];
}

function batchItem(input: Input): Input | undefined {
  const requests = Object.values((input.RequestItems ?? {}) as Record<string, unknown>)[0];
  if (!Array.isArray(requests)) return undefined;
  const first = requests[0] as Input | undefined;
  return first && (first.PutRequest || first.DeleteRequest) ? first : { Key: first };
}

/**
 * The write units DynamoDB bills for a write it refused on its condition, or `undefined` when `error`
 * is something else: a refused single write by the size of the item as it is (at least one unit: the
 * store asks for it with `ReturnValuesOnConditionCheckFailure: ALL_OLD`); a cancelled transaction 2
 * units per KB of each of its items (the item as it is, else the item it would have put): an upper
 * bound, what AWS bills for a cancelled transaction is not published.
 */
function failedWriteUnits(error: unknown, input: Input): number | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error.name === 'ConditionalCheckFailedException') {
    return writeUnitsForSize(sizeOf((error as { Item?: RawItem }).Item));
  }
  if (error.name !== 'TransactionCanceledException') return undefined;
  const reasons =
    (error as { CancellationReasons?: { Code?: string; Item?: RawItem }[] }).CancellationReasons ?? [];
  if (!reasons.some((reason) => reason.Code === 'ConditionalCheckFailed')) return undefined;
  return transactItems(input).reduce((sum, item, index) => {
    const old = reasons[index]?.Item;
    const put = (item.Put as { Item?: Record<string, unknown> } | undefined)?.Item;
    // Refused items come back marshalled; a document client's input is not yet at this step.
    const size = old ? sizeOf(old) : put ? itemSizeBytes(put) : 0;
    return sum + 2 * writeUnitsForSize(size);
  }, 0);
}

function sizeOf(item: RawItem | undefined): number {
  const plain = plainItem(item);
  return plain ? itemSizeBytes(plain) : 0;
}

function indexUnits(entry: ConsumedCapacity): number {
  return Object.values(entry.GlobalSecondaryIndexes ?? {}).reduce(
    (sum, index) => sum + (index.CapacityUnits ?? 0),
    0,
  );
}
