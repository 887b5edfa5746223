import { checkBucket } from '../../core/ports/due-note-items';
import { checkShard } from '../../core/ports/due-note-reads';
import { optionalNumber } from './schedule-items';
import { conditionFailure, type StoreContext } from './store-context';
import { dueCursorKey } from './table-design';

/** A shard's note cursor, strongly consistent: the last bucket fully processed. */
export async function readNoteCursor(context: StoreContext, shard: number): Promise<number | undefined> {
  checkShard(shard, context.shards);
  const output = await context.get('readNoteCursor', { Key: dueCursorKey(shard), ConsistentRead: true });
  return optionalNumber(output.Item?.bucket) ?? undefined;
}

/**
 * Moves a shard's cursor forward with one conditional update (1 WRU, no index; the item is created by
 * the first move): a mover behind the cursor fails its condition and writes nothing.
 */
export async function moveNoteCursor(
  context: StoreContext,
  shard: number,
  toBucket: number,
): Promise<boolean> {
  checkShard(shard, context.shards);
  checkBucket('toBucket', toBucket);
  try {
    await context.update('moveNoteCursor', {
      Key: dueCursorKey(shard),
      UpdateExpression: 'SET #bucket = :to',
      ConditionExpression: 'attribute_not_exists(#bucket) OR #bucket < :to',
      ExpressionAttributeNames: { '#bucket': 'bucket' },
      ExpressionAttributeValues: { ':to': toBucket },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return true;
  } catch (error) {
    const { old } = conditionFailure(error);
    // There already: our own earlier try, or another reader that finished the same buckets.
    return optionalNumber(old?.bucket) === toBucket;
  }
}
