import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EpochMs } from '../../../lib/core/clock';
import { COALESCE_POLICIES } from '../../../lib/core/model/schedule';
import { type FirePlan, planFires } from '../../../lib/core/planning';
import { listSource } from '../../support/fire-time-sources';

const T0 = Date.parse('2026-01-01T00:00:00Z');

/** Fire times: sorted, distinct, within the first hour. */
const fireTimesArb = fc
  .uniqueArray(fc.integer({ min: 0, max: 3_600_000 }), { minLength: 1, maxLength: 60 })
  .map((offsets) => offsets.sort((a, b) => a - b).map((offset) => T0 + offset));

/** Gaps between ticks: mostly a minute, sometimes an outage of up to 20 minutes. */
const tickGapsArb = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 1, max: 60_000 }) },
    fc.integer({ min: 60_001, max: 1_200_000 }),
  ),
  { minLength: 1, maxLength: 200 },
);

interface Run {
  plan: FirePlan;
  now: EpochMs;
  missedFrom: EpochMs;
}

function simulate(
  fireTimes: EpochMs[],
  gaps: number[],
  coalesce: (typeof COALESCE_POLICIES)[number],
  lookaheadMs: number,
  maxJitterSeconds: number,
  maxFiresPerPlan: number,
): Run[] {
  const source = listSource(fireTimes);
  let nextFireAt: EpochMs | null = source.next(T0 - 120_000) ?? null;
  let now = T0 - 120_000;
  const runs: Run[] = [];
  // After the random ticks, keep ticking every minute until the trigger is exhausted.
  const allGaps = [...gaps, ...Array.from({ length: 200 }, () => 60_000)];
  for (const gap of allGaps) {
    now += gap;
    if (nextFireAt === null) break;
    if (nextFireAt > now + lookaheadMs) continue;
    const plan = planFires({
      scheduleId: 's',
      source,
      nextFireAt,
      policies: { coalesce, misfireGraceSeconds: null, maxJitterSeconds },
      limits: { lookaheadMs, maxFiresPerPlan },
      now,
      random: Math.random,
    });
    runs.push({ plan, now, missedFrom: nextFireAt });
    nextFireAt = plan.nextFireAt;
  }
  return runs;
}

const scenarioArb = fc.record({
  fireTimes: fireTimesArb,
  gaps: tickGapsArb,
  coalesce: fc.constantFrom(...COALESCE_POLICIES),
  lookaheadMs: fc.integer({ min: 0, max: 120_000 }),
  maxJitterSeconds: fc.integer({ min: 0, max: 120 }),
  maxFiresPerPlan: fc.integer({ min: 1, max: 20 }),
});

describe('planFires over random clocks, outages and coalesce policies', () => {
  it('never dispatches a fire time twice across consecutive plans, and only real fire times, in order', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const runs = simulate(
          s.fireTimes,
          s.gaps,
          s.coalesce,
          s.lookaheadMs,
          s.maxJitterSeconds,
          s.maxFiresPerPlan,
        );
        const dispatched = runs.flatMap((run) => run.plan.fires.map((fire) => fire.fireTime));
        expect(new Set(dispatched).size).toBe(dispatched.length);
        expect(dispatched.every((fire) => s.fireTimes.includes(fire))).toBe(true);
        expect([...dispatched].sort((a, b) => a - b)).toEqual(dispatched);
      }),
      { numRuns: 300 },
    );
  });

  it('loses no fire time: each one is dispatched, or was missed and coalesced into one that was', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const runs = simulate(
          s.fireTimes,
          s.gaps,
          s.coalesce,
          s.lookaheadMs,
          s.maxJitterSeconds,
          s.maxFiresPerPlan,
        );
        const dispatched = new Set(runs.flatMap((run) => run.plan.fires.map((fire) => fire.fireTime)));
        for (const fireTime of s.fireTimes) {
          if (dispatched.has(fireTime)) continue;
          expect(s.coalesce).not.toBe('all');
          const coalescingRun = runs.find((run) => run.missedFrom <= fireTime && fireTime <= run.now);
          expect(coalescingRun, `fire ${fireTime} was neither dispatched nor missed`).toBeDefined();
          const keptFromGroup = coalescingRun?.plan.fires.filter(
            (fire) =>
              fire.fireTime >= (coalescingRun?.missedFrom ?? 0) && fire.fireTime <= (coalescingRun?.now ?? 0),
          );
          expect(keptFromGroup).toHaveLength(1);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('jitters each fire within maxJitterSeconds and before the next dispatched fire', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const runs = simulate(
          s.fireTimes,
          s.gaps,
          s.coalesce,
          s.lookaheadMs,
          s.maxJitterSeconds,
          s.maxFiresPerPlan,
        );
        const fires = runs.flatMap((run) => run.plan.fires);
        fires.forEach((fire, index) => {
          expect(fire.runAt).toBeGreaterThanOrEqual(fire.fireTime);
          if (s.maxJitterSeconds === 0) expect(fire.runAt).toBe(fire.fireTime);
          else expect(fire.runAt - fire.fireTime).toBeLessThan(s.maxJitterSeconds * 1000);
          const following = fires[index + 1];
          if (following) expect(fire.runAt).toBeLessThan(following.fireTime);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('dispatches every fire before it is due when ticks come at least once per lookahead', () => {
    fc.assert(
      fc.property(fireTimesArb, fc.constantFrom(...COALESCE_POLICIES), (fireTimes, coalesce) => {
        const runs = simulate(fireTimes, [], coalesce, 90_000, 0, 1_000);
        const fires = runs.flatMap((run) =>
          run.plan.fires.map((fire) => ({ fire: fire.fireTime, planned: run.now })),
        );
        expect(fires.map((entry) => entry.fire)).toEqual(fireTimes);
        expect(fires.every((entry) => entry.planned < entry.fire)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
