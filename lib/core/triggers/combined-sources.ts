import type { EpochMs } from '../clock';
import { MS_PER_HOUR } from './calendar';
import { PeriodPairing } from './coincidence-pairing';
import { firstCoincidence } from './coincidence-search';
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
 * The length of the periods in which an `and` trigger pairs coincidences: a whole number of hours,
 * at least four times the threshold, so that a coincidence giving way at a period's end is
 * always followed by one that does not.
 */
export function pairingPeriodMs(thresholdMs: number): number {
  return Math.max(1, Math.ceil((4 * thresholdMs) / MS_PER_HOUR)) * MS_PER_HOUR;
}

/**
 * Fires when all children fire within `thresholdMs` of each other, at the earliest of their fire
 * times (APScheduler 4's AndTrigger). A fire consumes the children's fire times that formed it:
 * the next coincidence is looked for after the latest of them, so the trigger never fires more
 * often than its least frequent child. Finished as soon as any child is.
 *
 * `next(from)` stays a pure function of `from`: where coincidences overlap (a child fires twice
 * within about twice the threshold), which ones pair up depends on where pairing starts, so it
 * starts afresh at the start of every period ({@link pairingPeriodMs}: every whole UTC hour for a
 * threshold up to 15 minutes). A coincidence that straddles a period's end and shares a fire
 * time with the first coincidence of the next period gives way to it.
 *
 * @throws {MaxIterationsReachedError} when one search for a coincidence takes more than `maxIterations` rounds.
 * @example
 * // Every 10 s and every 15 s coincide every 30 s.
 * allOf([intervalFireTimes(0, 10_000), intervalFireTimes(0, 15_000)], 0, 100).next(1); // 30000
 */
export function allOf(
  children: readonly FireTimeSource[],
  thresholdMs: number,
  maxIterations: number,
): FireTimeSource {
  const rules = { children, thresholdMs, maxIterations };
  const periodMs = pairingPeriodMs(thresholdMs);
  let pairing: PeriodPairing | undefined;
  const pairingIn = (periodStart: EpochMs) => {
    if (pairing?.periodStart !== periodStart) pairing = new PeriodPairing(rules, periodStart);
    return pairing;
  };

  return {
    next(fromInclusive) {
      let from = fromInclusive;
      for (;;) {
        const periodStart = Math.floor(from / periodMs) * periodMs;
        const periodEnd = periodStart + periodMs;
        const { coincidence, searchedFrom } = pairingIn(periodStart).firstAtOrAfter(from);
        if (coincidence === undefined) return undefined;
        if (coincidence.start >= periodEnd) {
          // Beyond this period: pairing there starts with the first coincidence after its start.
          const first = searchedFrom <= periodEnd ? coincidence : firstCoincidence(rules, periodEnd);
          if (first === undefined) return undefined;
          from = first.start;
          continue;
        }
        if (coincidence.end >= periodEnd) {
          const firstOfNextPeriod = firstCoincidence(rules, periodEnd);
          if (firstOfNextPeriod !== undefined && firstOfNextPeriod.start <= coincidence.end) {
            from = periodEnd;
            continue;
          }
        }
        return coincidence.start;
      }
    },
  };
}
