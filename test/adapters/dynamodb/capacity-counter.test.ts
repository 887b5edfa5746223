import { describe, expect, it } from 'vitest';
import { CapacityCounter } from '../../../lib/adapters/dynamodb/capacity';

describe('CapacityCounter', () => {
  it('adds refused writes to the write units and keeps them apart too', () => {
    const meter = new CapacityCounter();
    meter.record('claimJob', 'write', [
      { CapacityUnits: 2, GlobalSecondaryIndexes: { idx: { CapacityUnits: 1 } } },
    ]);
    meter.recordFailedWrite('claimJob', 3);

    expect(meter.snapshot().claimJob).toEqual({
      calls: 2,
      readUnits: 0,
      writeUnits: 5,
      indexWriteUnits: 1,
      failedWrites: 1,
      failedWriteUnits: 3,
    });
  });

  it('scales what the endpoint reports for transactions, and only for them', () => {
    const meter = new CapacityCounter({ transactionReportScale: 2 });
    meter.record('finish', 'write', [{ CapacityUnits: 8 }], { transaction: { conditionChecks: 1 } });
    meter.record('plain', 'write', [{ CapacityUnits: 8 }]);

    expect(meter.snapshot().finish?.writeUnits).toBe(4 + 2);
    expect(meter.snapshot().plain?.writeUnits).toBe(8);
  });

  it('sums every figure over all operations in total', () => {
    const meter = new CapacityCounter();
    meter.record('a', 'read', [{ CapacityUnits: 1.5 }]);
    meter.recordFailedWrite('b', 1);

    expect(meter.snapshot().total).toEqual({
      calls: 2,
      readUnits: 1.5,
      writeUnits: 1,
      indexWriteUnits: 0,
      failedWrites: 1,
      failedWriteUnits: 1,
    });
  });
});
