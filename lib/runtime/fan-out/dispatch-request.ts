import { MAX_SHARDS } from '../../adapters/dynamodb/table-design';
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
 * Checks an event as a `DispatchRequest`: `owner` a non-empty string of at most 200 characters,
 * `shards` distinct whole numbers below `MAX_SHARDS` (at least one), `leaseUntil` an epoch time in ms.
 * Shards at or above this deployment's own count are accepted: while a deploy raises the count, a tick
 * of the new code may hand them to a dispatcher of the old one, which reads their partitions as well
 * (ADR 0006, "Changing the shard count").
 */
export function parseDispatchRequest(event: unknown): DispatchRequest {
  const problems: string[] = [];
  const fields = typeof event === 'object' && event !== null ? (event as Record<string, unknown>) : {};
  const { owner, shards, leaseUntil } = fields;
  if (typeof owner !== 'string' || owner.length === 0 || owner.length > MAX_OWNER_LENGTH) {
    problems.push(`owner must be a string of 1 to ${MAX_OWNER_LENGTH} characters`);
  }
  const validShards =
    Array.isArray(shards) &&
    shards.length > 0 &&
    shards.length <= MAX_SHARDS &&
    new Set(shards).size === shards.length &&
    shards.every((shard) => Number.isInteger(shard) && shard >= 0 && shard < MAX_SHARDS);
  if (!validShards) {
    problems.push(
      `shards must be a list of distinct whole numbers from 0 to ${MAX_SHARDS - 1}, at least one`,
    );
  }
  if (typeof leaseUntil !== 'number' || !Number.isSafeInteger(leaseUntil) || leaseUntil < 0) {
    problems.push('leaseUntil must be an epoch time in milliseconds');
  }
  if (problems.length > 0) throw new InvalidDispatchRequestError(problems);
  return { owner: owner as string, shards: shards as number[], leaseUntil: leaseUntil as number };
}
