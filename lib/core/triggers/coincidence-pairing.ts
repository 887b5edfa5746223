import type { EpochMs } from '../clock';
import { type Coincidence, type CoincidenceRules, firstCoincidence } from './coincidence-search';

/** One step of a walk: the coincidence a search from `searchedFrom` found (undefined: a child is finished). */
export interface PairingStep {
  searchedFrom: EpochMs;
  coincidence: Coincidence | undefined;
}

/**
 * The coincidences paired within one period of an `and` trigger: the first one at or after the
 * period's start, then each time the first one after the latest fire time of the one before (its
 * partners are consumed). The walk is remembered, so asking for successive fire times continues
 * it instead of starting over; the answers are the same either way.
 */
export class PeriodPairing {
  /** Consecutive steps of one walk: each starts just after the previous coincidence's end. */
  private steps: PairingStep[] = [];

  constructor(
    private readonly rules: CoincidenceRules,
    readonly periodStart: EpochMs,
  ) {}

  /**
   * The first paired coincidence starting at or after `from` (which lies in the period), and
   * where the search that found it started.
   */
  firstAtOrAfter(from: EpochMs): PairingStep {
    let index = this.lastStepAtOrBefore(from);
    if (index < 0) {
      this.steps = [this.step(from > this.periodStart && this.restartsAt(from) ? from : this.periodStart)];
      index = 0;
    }
    for (;;) {
      const current = this.steps[index] as PairingStep;
      if (current.coincidence === undefined || current.coincidence.start >= from) return current;
      if (index === this.steps.length - 1) this.steps.push(this.step(current.coincidence.end + 1));
      index++;
    }
  }

  /**
   * True when no coincidence starting in `[periodStart, instant)` reaches `instant`: pairing from
   * `instant` on is then the same whatever was paired before, so a walk may start there.
   */
  private restartsAt(instant: EpochMs): boolean {
    const { thresholdMs } = this.rules;
    let coincidence = firstCoincidence(
      this.rules,
      Math.max(this.periodStart, instant - thresholdMs),
      instant,
    );
    while (coincidence !== undefined) {
      if (coincidence.end >= instant) return false;
      coincidence = firstCoincidence(this.rules, coincidence.start + 1, instant);
    }
    return true;
  }

  private step(searchedFrom: EpochMs): PairingStep {
    return { searchedFrom, coincidence: firstCoincidence(this.rules, searchedFrom) };
  }

  /** The index of the last remembered step that started at or before `from`, or -1. */
  private lastStepAtOrBefore(from: EpochMs): number {
    let low = 0;
    let high = this.steps.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if ((this.steps[middle] as PairingStep).searchedFrom <= from) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found;
  }
}
