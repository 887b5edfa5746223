import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EpochMs } from '../../../lib/core/clock';
import { COALESCE_POLICIES, type CoalescePolicy } from '../../../lib/core/model/schedule';
import { planFires } from '../../../lib/core/planning';
import { compileTrigger, type FireTimeSource } from '../../../lib/core/triggers';
import type { TriggerSpec } from '../../../lib/core/triggers/schema';

/**
 * ADR 0005: two ticks that read the same schedule state and both send their plans. A plan with no fire
 * before its `now` is a prefix of the schedule's fire sequence: the union of two such plans is what one
 * tick alone sends. A plan with a missed fire depends on `now` (the coalesce policy picks among missed
 * fires), yet without a cap on runs two such plans still send nothing that the ticks in sequence would
 * not, whichever of them moves the schedule on. With a cap they can run once more than the runs left, so
 * a schedule with `max_runs` takes the lease.
 */

const T0 = Date.parse('2026-01-01T00:00:00Z');
const SECOND = 1_000;
const LOOKAHEAD = 90 * SECOND;
/** The early-send window of ADR 0006: a next fire beyond the lookahead but inside it is sent alone. */
const EARLY_SEND = 900 * SECOND;
const DUE_AHEAD = 45 * SECOND;
const iso = (ms: EpochMs) => new Date(ms).toISOString();

const intervalArb = fc
  .record({
    seconds: fc.integer({ min: 1, max: 120 }),
    endAfter: fc.option(fc.integer({ min: 1, max: 900 })),
  })
  .map(({ seconds, endAfter }) => ({
    type: 'interval',
    seconds,
    start_at: iso(T0),
    ...(endAfter === null ? {} : { end_at: iso(T0 + endAfter * SECOND) }),
  }));
const cronArb = fc
  .record({ every: fc.integer({ min: 1, max: 30 }), offset: fc.integer({ min: 0, max: 59 }) })
  .map(({ every, offset }) => ({
    type: 'cron',
    expression: every === 1 ? `${offset % 60} * * * * *` : `*/${every} * * * * *`,
  }));
const dateArb = fc.integer({ min: 0, max: 600 }).map((s) => ({ type: 'date', run_at: iso(T0 + s * SECOND) }));
const leafArb = fc.oneof(intervalArb, cronArb, dateArb);
const triggerArb: fc.Arbitrary<TriggerSpec> = fc
  .oneof(
    { weight: 3, arbitrary: leafArb },
    fc.record({ type: fc.constant('or'), triggers: fc.array(leafArb, { minLength: 2, maxLength: 3 }) }),
    // An `and` whose cron fires at least once per threshold: the two always coincide
    fc
      .record({ interval: intervalArb, every: fc.integer({ min: 1, max: 30 }) })
      .map(({ interval, every }) => ({
        type: 'and',
        triggers: [interval, { type: 'cron', expression: `*/${every} * * * * *` }],
        threshold_seconds: every,
      })),
  )
  .map((spec) => spec as unknown as TriggerSpec);

const policiesArb = fc.record({
  coalesce: fc.constantFrom(...COALESCE_POLICIES),
  misfireGraceSeconds: fc.option(fc.integer({ min: 0, max: 300 })),
  maxJitterSeconds: fc.integer({ min: 0, max: 60 }),
  maxFiresPerPlan: fc.integer({ min: 1, max: 12 }),
  /** Runs left under a cap on runs (`null`: no cap), counted by the write that moves the schedule on. */
  runsLeft: fc.option(fc.integer({ min: 1, max: 8 })),
  /** The early-send window (0: off). */
  earlySendMs: fc.constantFrom(0, EARLY_SEND),
  /** How close the next fire must be for the schedule to be due (the lookahead: as without it). */
  dueAheadMs: fc.constantFrom(LOOKAHEAD, DUE_AHEAD),
});
type Policies = typeof policiesArb extends fc.Arbitrary<infer P> ? P : never;

interface State {
  nextFireAt: EpochMs | null;
  runsLeft: number | null;
}

interface Sent {
  ids: string[];
  /** Whether the per-plan cap bound the plan. */
  capped: boolean;
  after: State;
}

/** One tick's plan from `state` at `now` (a plan as the tick makes it, then cut at the runs left). */
function tick(source: FireTimeSource, p: Policies, state: State, now: EpochMs, random: () => number): Sent {
  const { nextFireAt, runsLeft } = state;
  if (nextFireAt === null || nextFireAt > now + dueWindow(p) || runsLeft === 0) {
    return { ids: [], capped: false, after: state };
  }
  const plan = planFires({
    scheduleId: 's',
    source,
    nextFireAt,
    policies: {
      coalesce: p.coalesce,
      misfireGraceSeconds: p.misfireGraceSeconds,
      maxJitterSeconds: p.maxJitterSeconds,
    },
    limits: {
      lookaheadMs: LOOKAHEAD,
      maxFiresPerPlan: p.maxFiresPerPlan,
      earlySendMs: p.earlySendMs,
      dueAheadMs: p.dueAheadMs,
    },
    now,
    random,
  });
  const finishesRuns = runsLeft !== null && plan.fires.length >= runsLeft;
  const fires = finishesRuns ? plan.fires.slice(0, runsLeft) : plan.fires;
  return {
    ids: fires.map((fire) => fire.jobId),
    capped: plan.fires.length === p.maxFiresPerPlan,
    after: {
      nextFireAt: finishesRuns ? null : plan.nextFireAt,
      runsLeft: runsLeft === null ? null : runsLeft - fires.length,
    },
  };
}

/** How far ahead a tick reads (what `dueWindowMs` gives the tick). */
const dueWindow = (p: Policies) => Math.max(p.dueAheadMs, p.earlySendMs);

/** A at t1, then B at t2 reading what A wrote: what one tick after the other sends. */
function sequential(source: FireTimeSource, p: Policies, state: State, t1: EpochMs, t2: EpochMs) {
  const a = tick(source, p, state, t1, () => 0.25);
  const b = tick(source, p, a.after, t2, () => 0.75);
  return { ids: new Set([...a.ids, ...b.ids]), capped: a.capped || b.capped };
}

const union = (...sent: Sent[]) => new Set(sent.flatMap((s) => s.ids));
const isSubset = (small: Set<string>, large: Set<string>) => [...small].every((id) => large.has(id));

/** A schedule state read by both ticks (N a fire time of the trigger), and the ticks' clocks. */
const scenarioArb = fc
  .record({
    trigger: triggerArb,
    policies: policiesArb,
    t1Offset: fc.integer({ min: -120, max: 600 }).map((s) => s * SECOND),
    nAfterT1: fc.integer({ min: 0, max: EARLY_SEND }),
    t2Fraction: fc.double({ min: 0, max: 1, noNaN: true }),
    randomA: fc.double({ min: 0, max: 0.999, noNaN: true }),
    randomB: fc.double({ min: 0, max: 0.999, noNaN: true }),
  })
  .map((s) => {
    const source = compileTrigger(s.trigger);
    const t1 = T0 + s.t1Offset;
    const nextFireAt = source.next(t1 + s.nAfterT1) ?? null;
    return { ...s, source, t1, nextFireAt };
  });

describe('two overlapping ticks over the same schedule state (ADR 0005; with and without the early send of ADR 0006)', () => {
  it('send together, when neither plan has a missed fire, exactly what one tick alone sends, within the runs left', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const N = s.nextFireAt;
        fc.pre(N !== null && N <= s.t1 + dueWindow(s.policies));
        // Both take the lease-less path: B's clock is not past N either
        const t2 = s.t1 + Math.floor(s.t2Fraction * (N - s.t1));
        const state = { nextFireAt: N, runsLeft: s.policies.runsLeft };
        const a = tick(s.source, s.policies, state, s.t1, () => s.randomA);
        const b = tick(s.source, s.policies, state, t2, () => s.randomB);
        const both = union(a, b);
        const seq = sequential(s.source, s.policies, state, s.t1, t2);

        expect(both).toEqual(new Set(b.ids));
        const end = (sent: Sent) => sent.after.nextFireAt ?? Number.POSITIVE_INFINITY;
        // With a due-ahead below the lookahead, the second of two ticks in sequence may find the schedule
        // A moved on not due yet: the fires B alone sent past A's end are sent by a later tick, same ids.
        const deferred = (id: string) =>
          s.policies.dueAheadMs < LOOKAHEAD && Number(id.split('@')[1]) >= end(a);
        expect([...both].every((id) => seq.ids.has(id) || deferred(id))).toBe(true);
        const plain = s.policies.earlySendMs === 0 && s.policies.dueAheadMs === LOOKAHEAD;
        if (!seq.capped && !a.capped && !b.capped && plain) expect(both).toEqual(seq.ids);
        // With the early send, the second of two ticks in sequence may also send the (isolated) fire the
        // first plan stopped before: a later fire, which the next tick sends under the same id anyway.
        const beyondB = [...seq.ids].filter((id) => !both.has(id)).map((id) => Number(id.split('@')[1]));
        for (const fire of beyondB) expect(fire).toBeGreaterThanOrEqual(end(b));
        if (state.runsLeft !== null) expect(both.size).toBeLessThanOrEqual(state.runsLeft);
        // A resumes no later than B: if A's advance wins, the fires B sent past A's end are planned again,
        // under the same ids, by the next tick
        expect(end(a)).toBeLessThanOrEqual(end(b));
      }),
      { numRuns: 250 },
    );
  });

  it('send, when the later tick leases a schedule the earlier has not moved on yet, nothing the two in sequence would not (no cap on runs)', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const N = s.nextFireAt;
        fc.pre(N !== null && N < s.t1 + dueWindow(s.policies));
        const policies = { ...s.policies, runsLeft: null };
        // A (no missed fire at t1) sent without a lease; B, past N, leases the state A read and plans it
        const t2 = N + 1 + Math.floor(s.t2Fraction * (s.t1 + dueWindow(s.policies) - N - 1));
        const state = { nextFireAt: N, runsLeft: null };
        const a = tick(s.source, policies, state, s.t1, () => s.randomA);
        const b = tick(s.source, policies, state, t2, () => s.randomB);
        const seq = sequential(s.source, policies, state, s.t1, t2);

        // With a due-ahead below the lookahead, B in sequence may find A's schedule not due yet: what B
        // alone sent past A's end, a later tick sends under the same ids (within the due-ahead, in time).
        const endOfA = a.after.nextFireAt ?? Number.POSITIVE_INFINITY;
        const deferred = (id: string) =>
          policies.dueAheadMs < LOOKAHEAD && Number(id.split('@')[1]) >= endOfA;
        expect([...union(a, b)].every((id) => seq.ids.has(id) || deferred(id))).toBe(true);
      }),
      { numRuns: 250 },
    );
  });

  it('send, when both plan missed fires (no cap on runs), nothing the ticks in sequence would not, whichever moves the schedule on', () => {
    fc.assert(
      fc.property(
        scenarioArb,
        fc.integer({ min: 0, max: 600 * SECOND }),
        fc.integer({ min: 0, max: 2 * LOOKAHEAD }),
        fc.integer({ min: 0, max: LOOKAHEAD }),
        (scenario, missedBy, t2After, t3After) => {
          // The stored next fire time up to 10 minutes before A's clock: missed fires to coalesce
          const s = { ...scenario, nextFireAt: scenario.source.next(scenario.t1 - missedBy) ?? null };
          const N = s.nextFireAt;
          fc.pre(N !== null && N <= s.t1 + dueWindow(s.policies));
          const policies = { ...s.policies, runsLeft: null };
          // B reads the state A read, later: A's read-to-advance outlasted B's start
          const t2 = Math.max(s.t1, N) + t2After;
          const t3 = t2 + t3After;
          const state = { nextFireAt: N, runsLeft: null };
          const a = tick(s.source, policies, state, s.t1, () => s.randomA);
          const b = tick(s.source, policies, state, t2, () => s.randomB);
          const end = (sent: Sent) => sent.after.nextFireAt ?? Number.POSITIVE_INFINITY;
          const fireOf = (id: string) => Number(id.split('@')[1]);

          // In sequence: A, then B from A's state, then C from B's
          const seqA = a;
          const seqB = tick(s.source, policies, seqA.after, t2, () => s.randomB);
          const seqC = tick(s.source, policies, seqB.after, t3, () => 0.5);
          const inSequence = union(seqA, seqB, seqC);
          // With a due-ahead below the lookahead, a tick in sequence may find the schedule not due yet:
          // a fire at or past where the sequence resumes, or past A's end (which B alone sent within its
          // lookahead), is sent by a later tick under the same id
          const deferred = (id: string) =>
            policies.dueAheadMs < LOOKAHEAD && (fireOf(id) >= end(seqC) || fireOf(id) >= end(a));
          const plannedAlone = (id: string) => inSequence.has(id) || deferred(id);

          expect(end(a)).toBeLessThanOrEqual(end(b));
          // B's advance wins: the next tick C continues from B's end
          const afterB = tick(s.source, policies, b.after, t3, () => 0.5);
          expect([...union(a, b, afterB)].filter((id) => !plannedAlone(id))).toEqual([]);
          // A's advance wins: C plans again from A's end, over fires B already sent
          const afterA = tick(s.source, policies, a.after, t3, () => 0.5);
          expect([...union(a, b, afterA)].filter((id) => !plannedAlone(id))).toEqual([]);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('may run a capped schedule once more than its runs left when both plan missed fires under coalesce latest: why `max_runs` takes the lease', () => {
    const missedArb = fc.record({
      seconds: fc.integer({ min: 1, max: 60 }),
      t1After: fc.integer({ min: 1, max: 600 }).map((s) => s * SECOND),
      t2After: fc.integer({ min: 0, max: LOOKAHEAD }),
    });
    const result = fc.check(
      fc.property(missedArb, ({ seconds, t1After, t2After }) => {
        const source = compileTrigger({
          type: 'interval',
          seconds,
          start_at: iso(T0),
        } as unknown as TriggerSpec);
        const policies: Policies = {
          coalesce: 'latest' satisfies CoalescePolicy,
          misfireGraceSeconds: null,
          maxJitterSeconds: 0,
          maxFiresPerPlan: 100,
          runsLeft: 1,
          earlySendMs: 0,
          dueAheadMs: LOOKAHEAD,
        };
        const state = { nextFireAt: T0, runsLeft: 1 };
        const t1 = T0 + t1After;
        const t2 = t1 + t2After;
        const both = union(
          tick(source, policies, state, t1, Math.random),
          tick(source, policies, state, t2, Math.random),
        );
        return both.size <= 1 && isSubset(both, sequential(source, policies, state, t1, t2).ids);
      }),
      { numRuns: 200 },
    );

    expect(result.failed).toBe(true);
    const [{ seconds, t1After, t2After }] = result.counterexample ?? [{ seconds: 0, t1After: 0, t2After: 0 }];
    // The two ticks coalesced to different latest missed fires, one run each: two runs against one left
    const latestAt = (now: number) => T0 + Math.floor((now - T0) / (seconds * SECOND)) * seconds * SECOND;
    expect(latestAt(T0 + t1After + t2After)).toBeGreaterThan(latestAt(T0 + t1After));
  });
});
