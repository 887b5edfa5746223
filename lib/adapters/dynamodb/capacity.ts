import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';

/** Reads (Get, Query, BatchGet) or writes (Put, Update, Delete, TransactWrite). */
export type RequestKind = 'read' | 'write';

/** Receives the capacity each store request consumed (the store asks DynamoDB for it when a meter is set). */
export interface CapacityMeter {
  record(operation: string, kind: RequestKind, consumed: readonly ConsumedCapacity[]): void;
}

export interface CapacityTotals {
  calls: number;
  readUnits: number;
  writeUnits: number;
  /** Write units spent on global secondary indexes (included in `writeUnits`). */
  indexWriteUnits: number;
}

/** A meter that sums capacity per store operation (`claimJob`, `releaseSchedule`, …). */
export class CapacityCounter implements CapacityMeter {
  private readonly totals = new Map<string, CapacityTotals>();

  record(operation: string, kind: RequestKind, consumed: readonly ConsumedCapacity[]): void {
    const totals = this.totals.get(operation) ?? emptyTotals();
    totals.calls += 1;
    for (const entry of consumed) {
      const units = entry.CapacityUnits ?? (entry.Table?.CapacityUnits ?? 0) + indexUnits(entry);
      if (kind === 'read') {
        totals.readUnits += units;
      } else {
        totals.writeUnits += units;
        totals.indexWriteUnits += indexUnits(entry);
      }
    }
    this.totals.set(operation, totals);
  }

  /** Totals per operation, and `total` over all of them. */
  snapshot(): Record<string, CapacityTotals> {
    const result: Record<string, CapacityTotals> = {};
    const total = emptyTotals();
    for (const [operation, totals] of this.totals) {
      result[operation] = { ...totals };
      total.calls += totals.calls;
      total.readUnits += totals.readUnits;
      total.writeUnits += totals.writeUnits;
      total.indexWriteUnits += totals.indexWriteUnits;
    }
    result.total = total;
    return result;
  }

  reset(): void {
    this.totals.clear();
  }
}

function emptyTotals(): CapacityTotals {
  return { calls: 0, readUnits: 0, writeUnits: 0, indexWriteUnits: 0 };
}

function indexUnits(entry: ConsumedCapacity): number {
  return Object.values(entry.GlobalSecondaryIndexes ?? {}).reduce(
    (sum, index) => sum + (index.CapacityUnits ?? 0),
    0,
  );
}
