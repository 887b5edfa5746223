import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import type { EpochMs } from '../../../lib/core/clock';
import {
  compileTrigger,
  type FireTimeSource,
  parseTrigger,
  triggerTimezone,
} from '../../../lib/core/triggers';
import { instantArb, triggerArb } from './arbitraries';

const FIRES_PER_RUN = 10;

function firstFires(source: FireTimeSource, from: EpochMs): EpochMs[] {
  const fires: EpochMs[] = [];
  let next = source.next(from);
  while (next !== undefined && fires.length < FIRES_PER_RUN) {
    fires.push(next);
    next = source.next(next + 1);
  }
  return fires;
}

/** Instants in `(after, upTo]`: both ends, and a few between. */
function samplesBetween(after: EpochMs, upTo: EpochMs): EpochMs[] {
  const span = upTo - after;
  return [after + 1, after + Math.ceil(span / 3), after + Math.ceil(span / 2), upTo - 1, upTo].filter(
    (instant) => instant > after && instant <= upTo,
  );
}

describe('every trigger (property)', () => {
  it('fires at strictly increasing instants inside start_at..end_at, consistently, skipping none', () => {
    fc.assert(
      fc.property(triggerArb, instantArb, (input, from) => {
        const spec = parseTrigger(input);
        const source = compileTrigger(spec);
        const fires = firstFires(source, from);
        const startAt =
          'start_at' in spec && spec.start_at !== undefined ? Date.parse(spec.start_at) : -Infinity;
        const endAt = 'end_at' in spec && spec.end_at !== undefined ? Date.parse(spec.end_at) : Infinity;
        let previous = from - 1;
        for (const fire of fires) {
          expect(fire).toBeGreaterThan(previous);
          expect(fire).toBeGreaterThanOrEqual(startAt);
          expect(fire).toBeLessThanOrEqual(endAt);
          expect(source.next(fire)).toBe(fire);
          for (const instant of samplesBetween(previous, fire)) expect(source.next(instant)).toBe(fire);
          previous = fire;
        }
        if (fires.length < FIRES_PER_RUN) expect(source.next(previous + 1)).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });

  it('fires only at wall-clock times that exist in the trigger’s zone', () => {
    fc.assert(
      fc.property(triggerArb, instantArb, (input, from) => {
        const spec = parseTrigger(input);
        const zone = triggerTimezone(spec);
        for (const fire of firstFires(compileTrigger(spec), from)) {
          const local = DateTime.fromMillis(fire, { zone });
          const wallClock = local.toObject();
          expect(DateTime.fromObject(wallClock, { zone }).toObject()).toEqual(wallClock);
        }
      }),
      { numRuns: 100 },
    );
  });
});
