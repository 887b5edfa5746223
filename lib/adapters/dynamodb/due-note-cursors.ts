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

/**
 * Creates a shard's cursor at `atBucket` unless it has one (1 WRU): a cursor is never moved back, nor
 * forward past buckets its reader has not processed. Returns where the cursor stands.
 */
export async function createNoteCursor(
  context: StoreContext,
  shard: number,
  atBucket: number,
): Promise<number> {
  checkShard(shard, context.shards);
  checkBucket('atBucket', atBucket);
  try {
    await context.update('createNoteCursor', {
      Key: dueCursorKey(shard),
      UpdateExpression: 'SET #bucket = :at',
      ConditionExpression: 'attribute_not_exists(#bucket)',
      ExpressionAttributeNames: { '#bucket': 'bucket' },
      ExpressionAttributeValues: { ':at': atBucket },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return atBucket;
  } catch (error) {
    const { old } = conditionFailure(error);
    const standing = optionalNumber(old?.bucket);
    if (standing === null) throw error;
    return standing;
  }
}
