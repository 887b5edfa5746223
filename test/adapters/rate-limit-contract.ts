import { beforeEach, expect, it } from 'vitest';
import { type RateLimit, startIntervalMs } from '../../lib/core/model/rate-limit';
import type { ClaimJobInput } from '../../lib/core/ports/job-store';
import { rateWakeStaleBefore } from '../../lib/core/ports/waiting-line';
import { jobRequest, MINUTE, SECOND, type Store, type StoreFixture, SUCCESS, T0 } from './store-fixtures';

const FIVE_PER_SECOND: RateLimit = { max: 5, perSeconds: 1 };
/** 1 s and the start tolerance, over 5 starts: 220 ms. */
const FIVE_PER_SECOND_MS = startIntervalMs(FIVE_PER_SECOND);

/** The first moment a booking made at `bookedAt` is stale. */
function rateWakeStaleAt(bookedAt: number): number {
  return bookedAt + (bookedAt - rateWakeStaleBefore(bookedAt)) + 1;
}

function rateClaim(id: string, now: number, rateLimit: RateLimit, limit?: number): ClaimJobInput {
  return {
    job: jobRequest(id, { task: 'limited' }),
    attempt: 1,
    owner: `w-${id}`,
    now,
    leaseUntil: now + MINUTE,
    rateLimit,
    ...(limit !== undefined && { concurrencyLimit: limit }),
  };
}

/** Rate limits: starts of a task spaced `perSeconds / max` apart, checked in the claim itself. */
export function rateLimitContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    ({ store } = fixture());
  });

  it('lets a job start only once the previous start is one interval old, and writes nothing when refused', async () => {
    const first = await store.claimJob(rateClaim('a', T0, FIVE_PER_SECOND));
    const early = await store.claimJob(rateClaim('b', T0 + FIVE_PER_SECOND_MS - 1, FIVE_PER_SECOND));
    const notWritten = await store.getJob('b', T0 + 150);
    const onTime = await store.claimJob(rateClaim('b', T0 + FIVE_PER_SECOND_MS, FIVE_PER_SECOND));

    expect(FIVE_PER_SECOND_MS).toBe(220);
    expect(first.status).toBe('claimed');
    expect(early).toEqual({ status: 'no_slot', running: 0, nextStartAt: T0 + FIVE_PER_SECOND_MS });
    expect(notWritten).toBeUndefined();
    expect(onTime).toMatchObject({ status: 'claimed', job: { status: 'running', holdsSlot: false } });
    expect(await store.taskSlots('limited')).toEqual({
      task: 'limited',
      running: 0,
      limit: null,
      paused: false,
      rateLimit: FIVE_PER_SECOND,
      nextStartAt: T0 + 2 * FIVE_PER_SECOND_MS,
    });
  });

  it('takes a start again for a claimed job only once the next start time has come, and never while paused', async () => {
    await store.claimJob(rateClaim('a', T0, FIVE_PER_SECOND));

    const early = await store.retakeRateStart('limited', FIVE_PER_SECOND, T0 + 100);
    const onTime = await store.retakeRateStart('limited', FIVE_PER_SECOND, T0 + 300);
    const claimAfter = await store.claimJob(
      rateClaim('b', T0 + 300 + FIVE_PER_SECOND_MS - 1, FIVE_PER_SECOND),
    );
    await store.setTaskPaused('limited', true);
    const paused = await store.retakeRateStart('limited', FIVE_PER_SECOND, T0 + SECOND);

    expect(early).toEqual({ taken: false, nextStartAt: T0 + FIVE_PER_SECOND_MS });
    expect(onTime).toEqual({ taken: true });
    expect(claimAfter).toMatchObject({ status: 'no_slot', nextStartAt: T0 + 300 + FIVE_PER_SECOND_MS });
    expect(paused).toEqual({ taken: false });
  });

  it('never lets more than max jobs start in any window of perSeconds, however often claims come', async () => {
    const started: number[] = [];
    for (let now = T0; now < T0 + 3 * SECOND; now += 30) {
      const claim = await store.claimJob(rateClaim(`job-${now - T0}`, now, { max: 5, perSeconds: 2 }));
      if (claim.status === 'claimed') started.push(now - T0);
    }

    // (2 s + 100 ms) / 5 = 420 ms apart: claims come every 30 ms, so 0, 420, 840, …
    expect(started).toEqual([0, 420, 840, 1260, 1680, 2100, 2520, 2940]);
  });

  it('checks the concurrency limit and the pause before the rate, and takes both in one claim', async () => {
    const rate: RateLimit = { max: 1, perSeconds: 1 };
    await store.claimJob(rateClaim('a', T0, rate, 1));
    const full = await store.claimJob(rateClaim('b', T0 + 100, rate, 1));
    await store.finishJob({ jobId: 'a', owner: 'w-a', result: SUCCESS, expiresAt: T0 + MINUTE });
    const overRate = await store.claimJob(rateClaim('b', T0 + 200, rate, 1));
    const started = await store.claimJob(rateClaim('b', T0 + startIntervalMs(rate), rate, 1));
    await store.finishJob({ jobId: 'b', owner: 'w-b', result: SUCCESS, expiresAt: T0 + MINUTE });
    await store.setTaskPaused('limited', true);
    const paused = await store.claimJob(rateClaim('c', T0 + 5 * SECOND, rate, 1));

    expect(full).toEqual({ status: 'no_slot', running: 1 });
    expect(overRate).toEqual({ status: 'no_slot', running: 0, nextStartAt: T0 + startIntervalMs(rate) });
    expect(started).toMatchObject({ status: 'claimed', job: { holdsSlot: true } });
    expect(paused).toEqual({ status: 'no_slot', running: 0 });
    expect(await store.taskSlots('limited')).toMatchObject({ running: 0, limit: 1, paused: true });
  });

  it('books one wake-up per start time: the first caller for a time wins, an earlier or equal time loses', async () => {
    const noCounter = await store.bookRateWake({ task: 'limited', at: T0 + 200, token: 'call-1', now: T0 });
    await store.claimJob(rateClaim('a', T0, FIVE_PER_SECOND));

    const first = await store.bookRateWake({ task: 'limited', at: T0 + 200, token: 'call-2', now: T0 });
    const same = await store.bookRateWake({ task: 'limited', at: T0 + 200, token: 'call-3', now: T0 });
    const earlier = await store.bookRateWake({ task: 'limited', at: T0 + 100, token: 'call-4', now: T0 });
    const later = await store.bookRateWake({ task: 'limited', at: T0 + 400, token: 'call-5', now: T0 });

    expect([noCounter, first, same, earlier, later]).toEqual([false, true, false, false, true]);
  });

  it('keeps the booking of a start that has come however late the next caller is, until it is stale', async () => {
    await store.claimJob(rateClaim('a', T0, FIVE_PER_SECOND));
    const at = T0 + FIVE_PER_SECOND_MS;
    await store.bookRateWake({ task: 'limited', at, token: 'call-1', now: at + SECOND });

    const late = await store.bookRateWake({ task: 'limited', at, token: 'call-2', now: at + 5 * SECOND });
    const stillFresh = await store.bookRateWake({
      task: 'limited',
      at,
      token: 'call-3',
      now: rateWakeStaleAt(at + SECOND) - 1,
    });
    const stale = await store.bookRateWake({
      task: 'limited',
      at,
      token: 'call-4',
      now: rateWakeStaleAt(at + SECOND),
    });
    const afterStale = await store.bookRateWake({
      task: 'limited',
      at,
      token: 'call-5',
      now: rateWakeStaleAt(at + SECOND),
    });

    expect([late, stillFresh, stale, afterStale]).toEqual([false, false, true, false]);
  });

  it('tells a booking made again by its own call (its answer was lost) that it is its own, and no one else', async () => {
    await store.claimJob(rateClaim('a', T0, FIVE_PER_SECOND));
    await store.bookRateWake({ task: 'limited', at: T0 + 200, token: 'call-1', now: T0 });

    const again = await store.bookRateWake({ task: 'limited', at: T0 + 200, token: 'call-1', now: T0 });
    const another = await store.bookRateWake({ task: 'limited', at: T0 + 200, token: 'call-2', now: T0 });

    expect([again, another]).toEqual([true, false]);
  });

  it('gives a booking back only for its own time, so it can be booked again', async () => {
    await store.claimJob(rateClaim('a', T0, FIVE_PER_SECOND));
    await store.bookRateWake({ task: 'limited', at: T0 + 200, token: 'call-1', now: T0 });

    await store.releaseRateWake('limited', T0 + 100);
    const afterOtherRelease = await store.bookRateWake({
      task: 'limited',
      at: T0 + 200,
      token: 'call-2',
      now: T0,
    });
    await store.releaseRateWake('limited', T0 + 200);
    const afterRelease = await store.bookRateWake({
      task: 'limited',
      at: T0 + 200,
      token: 'call-3',
      now: T0,
    });

    expect([afterOtherRelease, afterRelease]).toEqual([false, true]);
  });
}
