import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { EpochMs } from '../../../lib/core/clock';
import { compileTrigger, parseTrigger } from '../../../lib/core/triggers';
import { parseCronExpression } from '../../../lib/core/triggers/cron/cron-expression';
import { cronFieldsArb, ZONES as TEST_ZONES } from './arbitraries';
import {
  cronerFires,
  cronerPattern,
  EXCEPTIONS,
  nearTransition,
  policyFires,
  zoneTransitions,
} from './croner-reference';

/**
 * Sundial's cron fire times against croner's, for random expressions, zones and start instants.
 * Away from DST changes the two must agree, except where docs/triggers.md documents a difference
 * (each a named exception in croner-reference.ts, applied by rewriting the expression for
 * croner). Within NEAR of an offset change, Sundial must follow its documented DST policy,
 * applied to croner's wall-clock matches.
 */

const HOUR = 3_600_000;
const NEAR = 3 * HOUR;
const DAY = 24 * HOUR;
const YEAR = 365.25 * DAY;
const FIRES = 6;

/** The zones of the other trigger tests, and a change at midnight on the other side (Havana) and a :30 offset (Kolkata). */
const ZONES = [...TEST_ZONES, 'America/Havana', 'Asia/Kolkata'];

const FIRST_START = Date.parse('2020-01-01T00:00:00Z');
const LAST_START = Date.parse('2030-01-01T00:00:00Z');
const wholeSeconds = (min: number, max: number) =>
  fc.integer({ min: min / 1_000, max: max / 1_000 }).map((seconds) => seconds * 1_000);

/** Half the cases start shortly (NEAR to NEAR + 6 h) before one of the zone's offset changes, so that fire times reach it. */
const startArb = (zone: string) => {
  const transitions = zoneTransitions(zone, FIRST_START, LAST_START);
  if (transitions.length === 0) return wholeSeconds(FIRST_START, LAST_START);
  return fc.oneof(
    wholeSeconds(FIRST_START, LAST_START),
    fc
      .tuple(fc.constantFrom(...transitions), wholeSeconds(NEAR, NEAR + 6 * HOUR))
      .map(([transition, lead]) => transition.instant - lead),
  );
};

const caseArb = fc
  .constantFrom(...ZONES)
  .chain((zone) => fc.tuple(cronFieldsArb, fc.boolean(), fc.constant(zone), startArb(zone)));

const exceptionsSeen = new Map<string, number>();
let policyWindowsWithFires = 0;

function sundialFires(expression: string, zone: string, from: EpochMs, until: EpochMs): EpochMs[] {
  const source = compileTrigger(parseTrigger({ type: 'cron', expression, timezone: zone }));
  const fires: EpochMs[] = [];
  for (let fire = source.next(from); fire !== undefined && fire <= until && fires.length < FIRES; ) {
    fires.push(fire);
    fire = source.next(fire + 1);
  }
  return fires;
}

describe('cron fire times against croner (property)', () => {
  afterAll(() => {
    // Every documented difference was met, so none of them is dead weight, and the DST policy was
    // checked where it decides something.
    expect([...exceptionsSeen.keys()].sort()).toEqual(EXCEPTIONS.map(({ name }) => name).sort());
    expect(policyWindowsWithFires).toBeGreaterThan(0);
  });

  it('agree away from DST changes and follow the DST policy near them', () => {
    fc.assert(
      fc.property(caseArb, ([fields, withSeconds, zone, start]) => {
        const sundialFields = withSeconds ? fields : ['0', ...fields.slice(1)];
        const expression = (withSeconds ? fields : fields.slice(1)).join(' ');
        const { pattern, exceptions } = cronerPattern(sundialFields);
        for (const name of exceptions) exceptionsSeen.set(name, (exceptionsSeen.get(name) ?? 0) + 1);

        const horizon = start + 30 * YEAR;
        const transitions = zoneTransitions(zone, start - NEAR, horizon + NEAR);
        // Start away from offset changes: near one, only the DST policy says what is right.
        const from = nearTransition(transitions, start, NEAR) ? start + 2 * NEAR : start;

        if (!parseCronExpression(expression).ok) {
          // Sundial refuses only expressions that can never fire.
          expect(cronerFires(pattern, 'UTC', from, horizon)).toEqual([]);
          return;
        }
        const actual = sundialFires(expression, zone, from, horizon);
        const until = actual.length === FIRES ? (actual[FIRES - 1] as EpochMs) : horizon;
        const hourIsWildcard = sundialFields[2] === '*';
        const nearChanges = transitions
          .filter(({ instant }) => instant + NEAR > from && instant - NEAR < until)
          .flatMap((transition) =>
            policyFires(
              pattern,
              hourIsWildcard,
              transition,
              Math.max(from, transition.instant - NEAR + 1),
              Math.min(until, transition.instant + NEAR - 1),
            ),
          );
        if (nearChanges.length > 0) policyWindowsWithFires++;
        const awayFromChanges = cronerFires(pattern, zone, from, until, FIRES + 50).filter(
          (fire) => !nearTransition(transitions, fire, NEAR),
        );
        const expected = [...awayFromChanges, ...nearChanges].sort((a, b) => a - b);
        const iso = (fires: readonly EpochMs[]) =>
          fires.slice(0, FIRES).map((fire) => new Date(fire).toISOString());
        expect(iso(actual), `${expression} in ${zone} from ${new Date(from).toISOString()}`).toEqual(
          iso(expected),
        );
      }),
      { numRuns: 600 },
    );
  }, 30_000);
});
