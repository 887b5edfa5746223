import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planSendPhases, type SendPhaseOptions } from '../../../lib/core/planning';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const MAX_DELAY_SECONDS = 900;

const optionsArb = fc
  .record({ leadMs: fc.integer({ min: 0, max: 100 }), spanMs: fc.integer({ min: 1, max: 1_000 }) })
  .map(
    ({ leadMs, spanMs }): SendPhaseOptions => ({
      leadMs,
      toleranceMs: leadMs + spanMs,
      maxDelaySeconds: MAX_DELAY_SECONDS,
    }),
  );

/** Run times from a few seconds past to beyond the queue's longest delay, around a `now` at any ms. */
const caseArb = fc.record({
  now: fc.integer({ min: T0, max: T0 + 10_000 }),
  offsets: fc.array(
    fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: -5_000, max: 120_000 }) },
      fc.integer({ min: MAX_DELAY_SECONDS * 1000 - 2_000, max: MAX_DELAY_SECONDS * 1000 + 5_000 }),
    ),
    { maxLength: 200 },
  ),
  options: optionsArb,
});

interface Job {
  id: number;
  runAt: number;
}

function plan(now: number, offsets: number[], options: SendPhaseOptions) {
  const jobs: Job[] = offsets.map((offset, id) => ({ id, runAt: now + offset }));
  return { jobs, groups: planSendPhases(jobs, (job) => job.runAt, now, options) };
}

describe('planSendPhases', () => {
  it('delivers every message within [runAt − tolerance, runAt − lead], sending within the next second', () => {
    fc.assert(
      fc.property(caseArb, ({ now, offsets, options }) => {
        const { jobs, groups } = plan(now, offsets, options);

        const sent = groups.flatMap((group) => group.items.map(({ item }) => item.id));
        expect(sent.sort((a, b) => a - b)).toEqual(jobs.map((job) => job.id));
        for (const group of groups) {
          expect(group.sendAt).toBeGreaterThanOrEqual(now);
          expect(group.sendAt).toBeLessThan(now + 1_000);
          for (const { item, delaySeconds } of group.items) {
            const ahead = item.runAt - options.leadMs - now;
            expect(Number.isInteger(delaySeconds)).toBe(true);
            if (ahead < 0) {
              // Already due: sent at once, not delayed.
              expect([group.sendAt, delaySeconds]).toEqual([now, 0]);
            } else if (Math.floor(ahead / 1000) > MAX_DELAY_SECONDS) {
              // Beyond the queue's longest delay: sent at once with it (the worker sends it on).
              expect([group.sendAt, delaySeconds]).toEqual([now, MAX_DELAY_SECONDS]);
            } else {
              const delivery = group.sendAt + delaySeconds * 1000;
              expect(delivery).toBeGreaterThanOrEqual(item.runAt - options.toleranceMs);
              expect(delivery).toBeLessThanOrEqual(item.runAt - options.leadMs);
            }
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('keeps batches full: few groups, earliest first, and one group for messages of one phase', () => {
    fc.assert(
      fc.property(caseArb, ({ now, offsets, options }) => {
        const { groups } = plan(now, offsets, options);

        const span = options.toleranceMs - options.leadMs;
        expect(groups.length).toBeLessThanOrEqual(Math.ceil(1_000 / span) + 1);
        const sendAts = groups.map((group) => group.sendAt);
        expect(sendAts).toEqual([...sendAts].sort((a, b) => a - b));
        expect(new Set(sendAts).size).toBe(sendAts.length);
        const groupOfPhase = new Map<number, number>();
        groups.forEach((group, index) => {
          for (const { item } of group.items) {
            const ahead = item.runAt - options.leadMs - now;
            if (ahead < 0 || Math.floor(ahead / 1000) > MAX_DELAY_SECONDS) continue;
            const phase = ahead % 1000;
            expect(groupOfPhase.get(phase) ?? index).toBe(index);
            groupOfPhase.set(phase, index);
          }
        });
      }),
      { numRuns: 500 },
    );
  });

  it('sends a herd of fires at one instant in one group at its phase, not a second early', () => {
    // 25 fires at T0 + 30 s, planned at T0 − 400 ms with a 50 ms tolerance and 10 ms lead
    const now = T0 - 400;
    const jobs = Array.from({ length: 25 }, (_, id) => ({ id, runAt: T0 + 30_000 }));

    const groups = planSendPhases(jobs, (job) => job.runAt, now, {
      toleranceMs: 50,
      leadMs: 10,
      maxDelaySeconds: MAX_DELAY_SECONDS,
    });

    expect(groups).toHaveLength(1);
    expect(groups[0]?.sendAt).toBe(T0 - 10);
    expect(new Set(groups[0]?.items.map(({ delaySeconds }) => delaySeconds))).toEqual(new Set([30]));
  });
});
