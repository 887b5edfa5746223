import { describe, expect, it } from 'vitest';
import { checkBacklog } from '../../bench/soak/backlog-check';

/**
 * A task limited to 1: job `a` runs 0–1,000 ms and its result is written at 1,400 ms; job `b` joined
 * the line at 500 ms and starts at `bStartsAt`. Ticks run every second (each 100 ms long). Unless a
 * test hands the slot to `b`, it is free from 1,400 ms: `b` may wait for it one message's travel
 * (5,000 ms), until 6,400 ms.
 */
function backlogOf(bStartsAt: number, extra: Partial<Parameters<typeof checkBacklog>[0]> = {}) {
  return checkBacklog({
    task: 't',
    limit: 1,
    spans: [
      { jobId: 'a', from: 0, to: 1_000 },
      { jobId: 'b', from: bStartsAt, to: bStartsAt + 100 },
    ],
    deadHolds: [],
    lostWakings: [],
    joins: new Map([['b', [500]]]),
    wokenWithSlot: new Map(),
    wokenEnds: new Map(),
    sends: new Map(),
    lostResends: new Map(),
    runEnds: new Map([['a', [1_400]]]),
    claimedBefore: () => undefined,
    isOfTask: () => true,
    ticks: Array.from({ length: 40 }, (_, n): [number, number] => [n * 1_000, n * 1_000 + 100]),
    bursts: [],
    until: 40_000,
    ...extra,
  });
}

/** `a`'s ending handed its slot to `b` at 1,400 ms; `b`'s message was sent at `sentAt`, and claimed it at `claimedAt`. */
const handedToB = (claimedAt: number, sentAt = 1_450) => ({
  wokenWithSlot: new Map([['b', [1_400]]]),
  wokenEnds: new Map([['b', [claimedAt]]]),
  sends: new Map([['b', [sentAt]]]),
  claimedBefore: (jobId: string) => (jobId === 'b' ? claimedAt : undefined),
});

describe('checkBacklog: a slot is free while a job waits for one message’s travel at most', () => {
  it('passes a job that starts within one travel of the slot coming free', () => {
    const verdict = backlogOf(6_300);

    expect(verdict.violations).toEqual([]);
    expect(verdict).toMatchObject({ waited: 1, longestFreeMs: 4_900, longestRepairMs: 0 });
  });

  it('flags a job that still waits with the slot free after one travel, though a tick would have come', () => {
    const verdict = backlogOf(6_600);

    expect(verdict.violations).toHaveLength(1);
    expect(verdict.violations[0]).toContain('b waited 5200 ms');
  });

  it('counts a woken job claimed with no message sent for it as run by its waker', () => {
    const verdict = backlogOf(4_100, { ...handedToB(4_000), sends: new Map() });

    expect(verdict.slotTime.claimedUnsent).toBe(1);
  });

  it("splits a slot's time per run into woken, claimed, handler and ending", () => {
    const verdict = backlogOf(4_100, handedToB(4_000));

    // b woken 1,400–4,000; claimed 4,000, handler 4,100–4,200; a's ending 1,000–1,400, b's none seen
    expect(verdict.slotTime).toEqual({
      runs: 2,
      claimedUnsent: 0,
      woken: 1_300,
      claimed: 50,
      handler: 550,
      ending: 200,
    });
  });

  it('counts the slot handed to a woken job as taken until its claim', () => {
    const verdict = backlogOf(4_100, handedToB(4_000));

    expect(verdict.violations).toEqual([]);
    expect(verdict).toMatchObject({ longestFreeMs: 0, wokenWithSlot: 1, longestWokenMs: 2_600 });
  });

  it('counts a slot as taken from its run’s claim, before the handler starts', () => {
    // `a` was claimed at 0 ms, its handler ran 6,000–7,000 ms
    const lateStart = {
      spans: [
        { jobId: 'a', from: 6_000, to: 7_000 },
        { jobId: 'b', from: 8_000, to: 8_100 },
      ],
      runEnds: new Map([['a', [7_000]]]),
    };

    expect(
      backlogOf(8_000, { ...lateStart, claimedBefore: (jobId) => (jobId === 'a' ? 0 : undefined) })
        .violations,
    ).toEqual([]);
    expect(backlogOf(8_000, lateStart).violations).toHaveLength(1);
  });

  it('counts a free stretch that overlaps a throttling burst from the burst’s end', () => {
    expect(backlogOf(7_000).violations).toHaveLength(1);
    expect(backlogOf(7_000, { bursts: [[1_500, 2_100]] }).violations).toEqual([]);
  });

  it('checks only the jobs of the task, and only while they wait in its line', () => {
    expect(backlogOf(9_000, { isOfTask: (jobId) => jobId !== 'b' }).violations).toEqual([]);
    expect(backlogOf(9_000, { joins: new Map() }).violations).toEqual([]);
  });
});

describe('checkBacklog: after a crash, the next tick repairs the line', () => {
  it('counts the slot a dead invocation keeps until its lease ends, then wants the reaper’s tick', () => {
    // `a`'s process died at 1,000 ms: no result written; its lease ends at 3,000 ms (tick 3,000–3,100)
    const dead = {
      deadHolds: [{ task: 't', jobId: 'a', from: 1_000, to: 3_000, leaseUntil: 3_000 }],
      runEnds: new Map(),
    };

    expect(backlogOf(3_500, dead)).toMatchObject({ violations: [], longestRepairMs: 500 });
    expect(backlogOf(4_000, dead).violations).toHaveLength(1);
  });

  it('wants the next tick, not one travel, when a joiner died that may have lost the waking', () => {
    const lost = { lostWakings: [{ task: 't', at: 1_300 }] };

    expect(backlogOf(2_500, lost).violations).toEqual([]);
    expect(backlogOf(2_700, lost).violations).toHaveLength(1);
    expect(backlogOf(2_700, { lostWakings: [{ task: 'other', at: 1_300 }] }).violations).toEqual([]);
  });
});

describe('checkBacklog: a woken job whose message was lost is sent again', () => {
  it('passes a woken job whose message the first tick after it became overdue sent again, however long the queue took', () => {
    // Woken at 1,400 ms, overdue at 11,400 ms: the tick of 12,000–12,100 ms resends it (by 12,600 ms with the margin)
    const verdict = backlogOf(30_000, handedToB(30_000, 12_050));

    expect(verdict.violations).toEqual([]);
    expect(verdict.longestWokenMs).toBe(28_600);
  });

  it('flags a woken job whose message was sent later than that, or that was never claimed', () => {
    expect(backlogOf(30_000, handedToB(30_000, 12_700)).violations).toEqual([
      "b woken at 1400 holding a slot of 't': its message was sent 11300 ms later, due again by 12600",
    ]);
    const never = backlogOf(40_000, { wokenWithSlot: new Map([['b', [1_400]]]), until: 30_000 });
    expect(never.violations).toContain("b woken at 1400 holding a slot of 't' was never claimed");
  });

  it('gives one more resend period when the resend was taken by a caller whose message never went', () => {
    // The resend taken at 11,400 ms is lost: overdue again at 21,400 ms, resent by the tick of 22,000–22,100 ms
    const lostTaking = { lostResends: new Map([['b', [11_400]]]) };

    expect(backlogOf(30_000, { ...handedToB(30_000, 22_050), ...lostTaking }).violations).toEqual([]);
    expect(backlogOf(30_000, { ...handedToB(30_000, 22_700), ...lostTaking }).violations).toHaveLength(1);
    // A taking recorded for another job, or before this wake, puts nothing off
    const otherJob = { lostResends: new Map([['c', [11_400]]]) };
    expect(backlogOf(30_000, { ...handedToB(30_000, 22_050), ...otherJob }).violations).toHaveLength(1);
    const beforeWake = { lostResends: new Map([['b', [1_000]]]) };
    expect(backlogOf(30_000, { ...handedToB(30_000, 22_050), ...beforeWake }).violations).toHaveLength(1);
  });

  it('waits for the first tick after a throttling burst over the resend', () => {
    const burst = { bursts: [[11_500, 13_500]] as [number, number][] };

    expect(backlogOf(30_000, { ...handedToB(30_000, 14_500), ...burst }).violations).toEqual([]);
    expect(backlogOf(30_000, { ...handedToB(30_000, 14_700), ...burst }).violations).toHaveLength(1);
  });

  it('does not count the wait of a woken job for the other, free slot: it holds one', () => {
    // Limit 2: `c` runs 0–3,000 ms and gives its slot back (nobody else waits) while `b` is woken
    const verdict = backlogOf(14_500, {
      ...handedToB(14_500, 12_050),
      limit: 2,
      spans: [
        { jobId: 'a', from: 0, to: 1_000 },
        { jobId: 'c', from: 0, to: 3_000 },
        { jobId: 'b', from: 14_500, to: 14_600 },
      ],
      runEnds: new Map([
        ['a', [1_400]],
        ['c', [3_000]],
      ]),
    });

    expect(verdict.violations).toEqual([]);
  });
});
