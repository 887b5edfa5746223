import { inject } from 'vitest';
import { CapacityMeter, DYNAMODB_LOCAL_TRANSACTION_REPORT_SCALE } from '../../bench/support/capacity-meter';
import { DynamoDbStore } from '../../lib/adapters/dynamodb/dynamodb-store';
import { localDynamoDbClient, type TestTable } from './dynamodb';

/** A store on `table` whose every request is counted as AWS bills it (the benchmarks' meter). */
export function meteredStore(
  table: TestTable,
  shards?: number,
): { store: DynamoDbStore; meter: CapacityMeter } {
  const meter = new CapacityMeter({ transactionReportScale: DYNAMODB_LOCAL_TRANSACTION_REPORT_SCALE });
  const client = meter.attach(localDynamoDbClient(inject('dynamodbEndpoint')));
  const store = new DynamoDbStore({
    client,
    tableName: table.tableName,
    ...(shards !== undefined && { shards }),
  });
  return { store, meter };
}

/** What the requests since the last reset wrote: every unit, and those of index writes. */
export function writeUnitsOf(meter: CapacityMeter): { all: number; index: number } {
  const { total } = meter.snapshot();
  return { all: total.writeUnits, index: total.indexWriteUnits };
}
