import type { EpochMs } from '../clock';
import { MaxIterationsReachedError } from './errors';
import type { FireTimeSource } from './fire-time-source';

export const DEFAULT_THRESHOLD_SECONDS = 1;
export const DEFAULT_MAX_ITERATIONS = 10_000;

/**
 * Fires whenever any child fires; an instant several children share fires once.
 *
 * @example
 * anyOf([intervalFireTimes(0, 3_000), intervalFireTimes(0, 5_000)]).next(1); // 3000
 */
export function anyOf(children: readonly FireTimeSource[]): FireTimeSource {
  return {
    next(fromInclusive) {
      let earliest: EpochMs | undefined;
      for (const child of children) {
        const fire = child.next(fromInclusive);
        if (fire !== undefined && (earliest === undefined || fire < earliest)) earliest = fire;
      }
      return earliest;
    },
  };
}

/**
 * Fires when all children fire within `thresholdMs` of each other, at the earliest of their fire
 * times (APScheduler 4's AndTrigger, without its state): every child starts at `next(from)`; while
 * the spread is too wide, each child more than `thresholdMs` behind the latest jumps to its first
 * fire at or after `latest - thresholdMs`. Finished as soon as any child is.
 *
 * @throws {MaxIterationsReachedError} when no coincidence is found within `maxIterations` rounds.
 * @example
 * // Every 10 s and every 15 s coincide every 30 s.
 * allOf([intervalFireTimes(0, 10_000), intervalFireTimes(0, 15_000)], 0, 100).next(1); // 30000
 */
export function allOf(
  children: readonly FireTimeSource[],
  thresholdMs: number,
  maxIterations: number,
): FireTimeSource {
  return {
    next(fromInclusive) {
      const fires: EpochMs[] = [];
      for (const child of children) {
        const fire = child.next(fromInclusive);
        if (fire === undefined) return undefined;
        fires.push(fire);
      }
      for (let iteration = 0; iteration < maxIterations; iteration++) {
        const earliest = Math.min(...fires);
        const latest = Math.max(...fires);
        if (latest - earliest <= thresholdMs) return earliest;
        for (const [index, child] of children.entries()) {
          if ((fires[index] ?? latest) >= latest - thresholdMs) continue;
          const fire = child.next(latest - thresholdMs);
          if (fire === undefined) return undefined;
          fires[index] = fire;
        }
      }
      throw new MaxIterationsReachedError(maxIterations, fromInclusive);
    },
  };
}
