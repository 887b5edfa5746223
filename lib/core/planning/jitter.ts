import type { EpochMs } from '../clock';

/**
 * The instant a fire should start: its fire time plus a random delay below `maxJitterSeconds`,
 * and always before the following fire time so that jitter never reorders or merges fires.
 */
export function jitteredRunAt(
  fireTime: EpochMs,
  followingFireTime: EpochMs | undefined,
  maxJitterSeconds: number,
  random: () => number,
): EpochMs {
  if (maxJitterSeconds <= 0) return fireTime;
  const room = followingFireTime === undefined ? Number.POSITIVE_INFINITY : followingFireTime - fireTime - 1;
  const bound = Math.min(maxJitterSeconds * 1000, room);
  if (bound <= 0) return fireTime;
  return fireTime + Math.floor(random() * bound);
}
