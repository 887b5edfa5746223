import type { EpochMs } from '../clock';
import { MaxIterationsReachedError } from './errors';
import type { FireTimeSource } from './fire-time-source';

/** Every child fires once in `[start, end]`, and `end - start` is at most the threshold. */
export interface Coincidence {
  /** The earliest of the children's fire times: the `and` trigger's fire time. */
  start: EpochMs;
  /** The latest of them. */
  end: EpochMs;
}

export interface CoincidenceRules {
  children: readonly FireTimeSource[];
  thresholdMs: number;
  maxIterations: number;
}

/**
 * The first coincidence starting at or after `fromInclusive` (and before `before`, when given).
 * Each child starts at its first fire time at or after `from`; while the spread is too wide, each
 * child more than the threshold behind the latest one jumps to its first fire time at or after
 * `latest - threshold` (no earlier one can be part of a coincidence with the latest). The
 * coincidence found is therefore each child's first fire time at or after its start.
 *
 * @returns undefined when a child is finished, or when no coincidence starts before `before`.
 * @throws {MaxIterationsReachedError} after `maxIterations` rounds without a coincidence.
 * @example
 * // Every 10 s and every 15 s coincide every 30 s.
 * firstCoincidence({ children: [intervalFireTimes(0, 10_000), intervalFireTimes(0, 15_000)],
 *   thresholdMs: 0, maxIterations: 100 }, 1); // { start: 30000, end: 30000 }
 */
export function firstCoincidence(
  rules: CoincidenceRules,
  fromInclusive: EpochMs,
  before = Number.POSITIVE_INFINITY,
): Coincidence | undefined {
  const { children, thresholdMs, maxIterations } = rules;
  const fires: EpochMs[] = [];
  for (const child of children) {
    const fire = child.next(fromInclusive);
    if (fire === undefined) return undefined;
    fires.push(fire);
  }
  for (let iteration = 0; iteration < maxIterations; iteration++) {
    const earliest = Math.min(...fires);
    if (earliest >= before) return undefined;
    const latest = Math.max(...fires);
    if (latest - earliest <= thresholdMs) return { start: earliest, end: latest };
    for (const [index, child] of children.entries()) {
      if ((fires[index] ?? latest) >= latest - thresholdMs) continue;
      const fire = child.next(latest - thresholdMs);
      if (fire === undefined) return undefined;
      fires[index] = fire;
    }
  }
  throw new MaxIterationsReachedError(maxIterations, fromInclusive);
}
