import type { DispatchRequest } from '../../core/ports/dispatcher-invoker';

/** The longest owner a tick writes (`tick-<uuid>`), with room to spare. */
const MAX_OWNER_LENGTH = 200;

/** An event the dispatcher cannot act on; the message names every field that is wrong. */
export class InvalidDispatchRequestError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid dispatch request: ${problems.join('; ')}`);
    this.name = 'InvalidDispatchRequestError';
  }
}

/**
 * Checks an event as a `DispatchRequest` of a due index with `dueShards` shards: `owner` a non-empty
 * string of at most 200 characters, `shards` distinct whole numbers from 0 to `dueShards − 1` (at least
 * one), `leaseUntil` an epoch time in ms.
 */
export function parseDispatchRequest(event: unknown, dueShards: number): DispatchRequest {
  const problems: string[] = [];
  const fields = typeof event === 'object' && event !== null ? (event as Record<string, unknown>) : {};
  const { owner, shards, leaseUntil } = fields;
  if (typeof owner !== 'string' || owner.length === 0 || owner.length > MAX_OWNER_LENGTH) {
    problems.push(`owner must be a string of 1 to ${MAX_OWNER_LENGTH} characters`);
  }
  const validShards =
    Array.isArray(shards) &&
    shards.length > 0 &&
    shards.length <= dueShards &&
    new Set(shards).size === shards.length &&
    shards.every((shard) => Number.isInteger(shard) && shard >= 0 && shard < dueShards);
  if (!validShards) {
    problems.push(`shards must be a list of distinct whole numbers from 0 to ${dueShards - 1}, at least one`);
  }
  if (typeof leaseUntil !== 'number' || !Number.isSafeInteger(leaseUntil) || leaseUntil < 0) {
    problems.push('leaseUntil must be an epoch time in milliseconds');
  }
  if (problems.length > 0) throw new InvalidDispatchRequestError(problems);
  return { owner: owner as string, shards: shards as number[], leaseUntil: leaseUntil as number };
}
