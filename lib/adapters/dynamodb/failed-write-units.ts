import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { plainItem } from './attribute-values';
import { itemSizeBytes, writeUnitsForSize } from './item-size';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
type RawItem = Record<string, AttributeValue>;

/**
 * The write units DynamoDB bills for a write it refused on its condition, or `undefined` when `error`
 * is something else. A refused single write is billed by the size of the item as it is (at least one
 * unit: the store asks for that item with `ReturnValuesOnConditionCheckFailure: ALL_OLD`); a cancelled
 * transaction is counted as 2 units per KB of each of its items (the item as it is, else the item it
 * would have put), an upper bound: what AWS bills for a cancelled transaction is not published.
 */
export function failedWriteUnits(error: unknown, transactItems: readonly TransactItem[]): number | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error.name === 'ConditionalCheckFailedException') {
    return writeUnitsForSize(sizeOf((error as { Item?: RawItem }).Item));
  }
  if (error.name !== 'TransactionCanceledException') return undefined;
  const reasons =
    (error as { CancellationReasons?: { Code?: string; Item?: RawItem }[] }).CancellationReasons ?? [];
  if (!reasons.some((reason) => reason.Code === 'ConditionalCheckFailed')) return undefined;
  return transactItems.reduce((sum, item, index) => {
    const old = reasons[index]?.Item;
    const size = old ? sizeOf(old) : item.Put ? itemSizeBytes(item.Put.Item ?? {}) : 0;
    return sum + 2 * writeUnitsForSize(size);
  }, 0);
}

function sizeOf(item: RawItem | undefined): number {
  const plain = plainItem(item);
  return plain ? itemSizeBytes(plain) : 0;
}
