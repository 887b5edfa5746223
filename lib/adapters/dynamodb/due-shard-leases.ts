import type { EpochMs } from '../../core/clock';
import type { DueShardLeaseInput } from '../../core/ports/due-shard-leases';
import { optionalNumber } from './schedule-items';
import { conditionFailure, type StoreContext } from './store-context';
import { dueShardLeaseKey } from './table-design';

/**
 * Takes a due shard's lease with one conditional update (the item is created by the first lease): no
 * lease, or one that ended before `now`. 1 WRU, no index write.
 */
export async function leaseDueShard(
  context: StoreContext,
  input: DueShardLeaseInput,
): Promise<EpochMs | undefined> {
  const leaseUntil = input.now + input.leaseMs;
  try {
    await context.update('leaseDueShard', {
      Key: dueShardLeaseKey(input.shard),
      UpdateExpression: 'SET #owner = :owner, #until = :until',
      ConditionExpression: 'attribute_not_exists(#until) OR #until < :now',
      ExpressionAttributeNames: { '#owner': 'leaseOwner', '#until': 'leaseUntil' },
      ExpressionAttributeValues: { ':owner': input.owner, ':until': leaseUntil, ':now': input.now },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return leaseUntil;
  } catch (error) {
    const { old } = conditionFailure(error);
    // Our own earlier try applied and its answer was lost.
    const ours = old?.leaseOwner === input.owner && optionalNumber(old?.leaseUntil) === leaseUntil;
    return ours ? leaseUntil : undefined;
  }
}

/**
 * Ends a due shard's lease early while `owner` holds it: removes its end, so the shard is free at once
 * (the owner stays, which tells a retry of a release that applied).
 */
export async function releaseDueShard(
  context: StoreContext,
  shard: number,
  owner: string,
  now: EpochMs,
): Promise<boolean> {
  try {
    await context.update('releaseDueShard', {
      Key: dueShardLeaseKey(shard),
      UpdateExpression: 'REMOVE #until',
      ConditionExpression: '#owner = :owner AND #until >= :now',
      ExpressionAttributeNames: { '#owner': 'leaseOwner', '#until': 'leaseUntil' },
      ExpressionAttributeValues: { ':owner': owner, ':now': now },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return true;
  } catch (error) {
    const { old } = conditionFailure(error);
    return old?.leaseOwner === owner && old.leaseUntil === undefined;
  }
}
