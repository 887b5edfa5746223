import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';

/** Reads (Get, Query, BatchGet) or writes (Put, Update, Delete, TransactWrite). */
export type RequestKind = 'read' | 'write';

/** What a successful request was, beyond its kind. */
export interface RequestShape {
  /** A TransactWriteItems call, with how many of its items were ConditionChecks. */
  transaction?: { conditionChecks: number };
}

/**
 * Receives what each store request cost: the capacity DynamoDB reported for a request that succeeded
 * (the store asks for it when a meter is set), and the units of a write DynamoDB refused on its
 * condition, which it bills but reports nowhere.
 */
export interface CapacityMeter {
  record(
    operation: string,
    kind: RequestKind,
    consumed: readonly ConsumedCapacity[],
    shape?: RequestShape,
  ): void;
  recordFailedWrite(operation: string, units: number): void;
}

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

/** DynamoDB Local 1.25.1 reports transactional writes at twice what AWS bills (measured, see below). */
export const DYNAMODB_LOCAL_TRANSACTION_REPORT_SCALE = 2;

export interface CapacityCounterOptions {
  /**
   * What the endpoint reports per transactional write unit that AWS bills. AWS reports what it bills
   * (2 units per KB of each item); DynamoDB Local reports 4 per KB and nothing for a ConditionCheck
   * (measured with 1.25.1: `test/adapters/dynamodb/capacity-meter.int.test.ts`), so pass 2 for it.
   * @default 1
   */
  transactionReportScale?: number;
}

/**
 * A meter that sums what AWS would bill per store operation (`claimJob`, `releaseSchedule`, …):
 * reported capacity, transactions at 2 units per KB and item (a ConditionCheck counted as 2, an
 * upper bound), and refused conditional writes by the size of the item they were refused on.
 */
export class CapacityCounter implements CapacityMeter {
  private readonly totals = new Map<string, CapacityTotals>();
  private readonly transactionReportScale: number;

  constructor(options: CapacityCounterOptions = {}) {
    this.transactionReportScale = options.transactionReportScale ?? 1;
  }

  record(
    operation: string,
    kind: RequestKind,
    consumed: readonly ConsumedCapacity[],
    shape: RequestShape = {},
  ): void {
    const totals = this.entry(operation);
    totals.calls += 1;
    const scale = shape.transaction ? this.transactionReportScale : 1;
    for (const entry of consumed) {
      const index = indexUnits(entry) / scale;
      const units = (entry.CapacityUnits ?? (entry.Table?.CapacityUnits ?? 0) + indexUnits(entry)) / scale;
      if (kind === 'read') {
        totals.readUnits += units;
      } else {
        totals.writeUnits += units;
        totals.indexWriteUnits += index;
      }
    }
    if (kind === 'write' && shape.transaction) totals.writeUnits += 2 * shape.transaction.conditionChecks;
  }

  recordFailedWrite(operation: string, units: number): void {
    const totals = this.entry(operation);
    totals.calls += 1;
    totals.failedWrites += 1;
    totals.failedWriteUnits += units;
    totals.writeUnits += units;
  }

  /** Totals per operation, and `total` over all of them. */
  snapshot(): Record<string, CapacityTotals> {
    const result: Record<string, CapacityTotals> = {};
    const total = emptyTotals();
    for (const [operation, totals] of this.totals) {
      result[operation] = { ...totals };
      for (const key of Object.keys(total) as (keyof CapacityTotals)[]) total[key] += totals[key];
    }
    result.total = total;
    return result;
  }

  reset(): void {
    this.totals.clear();
  }

  private entry(operation: string): CapacityTotals {
    let totals = this.totals.get(operation);
    if (!totals) {
      totals = emptyTotals();
      this.totals.set(operation, totals);
    }
    return totals;
  }
}

export function emptyTotals(): CapacityTotals {
  return { calls: 0, readUnits: 0, writeUnits: 0, indexWriteUnits: 0, failedWrites: 0, failedWriteUnits: 0 };
}

function indexUnits(entry: ConsumedCapacity): number {
  return Object.values(entry.GlobalSecondaryIndexes ?? {}).reduce(
    (sum, index) => sum + (index.CapacityUnits ?? 0),
    0,
  );
}
