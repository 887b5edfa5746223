import { beforeEach, expect, it } from 'vitest';
import {
  addActive,
  fireRequest,
  jobRequest,
  MINUTE,
  range,
  SECOND,
  type Store,
  type StoreFixture,
  sleep,
  T0,
} from './store-fixtures';

export function concurrencyContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    store = fixture().store;
  });

  it('never starts more than max_runs fires of a capped schedule when 40 of them start at once', async () => {
    await addActive(store, 'capped', { schedule: { maxRuns: 7 } });
    const fires = range(40).map((n) => T0 + n * SECOND);
    await Promise.all(
      fires.map((fireTime) =>
        store.claimJob({
          job: fireRequest('capped', fireTime),
          attempt: 1,
          owner: `w-${fireTime}`,
          now: T0,
          leaseUntil: T0 + MINUTE,
        }),
      ),
    );

    const outcomes = await Promise.all(
      fires.flatMap((fireTime) =>
        // Each run asks twice (a retry whose answer was lost): it is counted once.
        [0, 1].map(() =>
          store.startCappedRun({
            scheduleId: 'capped',
            createdAt: T0,
            maxRuns: 7,
            jobId: `capped@${fireTime}`,
            owner: `w-${fireTime}`,
            fireTime,
          }),
        ),
      ),
    );

    const startedRuns = fires.filter(
      (_, n) => outcomes[2 * n] === 'started' || outcomes[2 * n + 1] === 'started',
    );
    expect(startedRuns).toHaveLength(7);
    expect(outcomes.filter((outcome) => outcome === 'gone')).toEqual([]);
    expect(await store.getSchedule('capped')).toMatchObject({ startedRuns: 7 });
  });

  it('lets exactly one of 200 concurrent claims of one job win', async () => {
    const request = jobRequest('contended', { origin: 'schedule', scheduleId: 's', fireTime: T0 });

    const outcomes = await Promise.all(
      range(200).map((n) =>
        store.claimJob({ job: request, attempt: 1, owner: `worker-${n}`, now: T0, leaseUntil: T0 + MINUTE }),
      ),
    );

    const winners = outcomes.filter((outcome) => outcome.status === 'claimed');
    expect(winners).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.status === 'duplicate')).toHaveLength(199);
    const stored = await store.getJob('contended', T0);
    expect(winners[0]?.status === 'claimed' && stored?.leaseOwner === winners[0].job.leaseOwner).toBe(true);
  });

  it('never holds more than three slots when 100 jobs of a limited task compete, and gives every slot back', async () => {
    const limit = 3;
    let held = 0;
    let mostHeld = 0;
    let mostCounted = 0;
    let done = false;
    const sampler = (async () => {
      while (!done) {
        mostCounted = Math.max(mostCounted, (await store.runningCounts()).get('limited') ?? 0);
        await sleep(5);
      }
    })();
    const runJob = async (n: number) => {
      const request = jobRequest(`limited-${n}`, { task: 'limited' });
      for (;;) {
        const outcome = await store.claimJob({
          job: request,
          attempt: 1,
          owner: `w-${n}`,
          now: T0,
          leaseUntil: T0 + MINUTE,
          concurrencyLimit: limit,
        });
        if (outcome.status === 'claimed') break;
        expect(outcome.status).toBe('no_slot');
        await sleep(5 + Math.random() * 20);
      }
      held++;
      mostHeld = Math.max(mostHeld, held);
      await sleep(2);
      held--;
      await store.finishJob({
        jobId: request.id,
        owner: `w-${n}`,
        result: { outcome: 'success', startedAt: T0, finishedAt: T0 + 1, attempt: 1 },
        expiresAt: T0 + MINUTE,
      });
    };

    await Promise.all(range(100).map(runJob));
    done = true;
    await sampler;

    expect(mostHeld).toBeGreaterThan(0);
    expect(mostHeld).toBeLessThanOrEqual(limit);
    expect(mostCounted).toBeLessThanOrEqual(limit);
    expect((await store.runningCounts()).get('limited')).toBe(0);
    const finished = await store.listJobs({ task: 'limited', status: 'success' }, { limit: 200 }, T0);
    expect(finished.items).toHaveLength(100);
  });

  it('returns the slots of crashed workers through the reap path after their leases expire', async () => {
    const limit = 3;
    const claims = await Promise.all(
      range(10).map((n) =>
        store.claimJob({
          job: jobRequest(`crash-${n}`, { task: 'limited' }),
          attempt: 1,
          owner: `doomed-${n}`,
          now: T0,
          leaseUntil: T0 + SECOND,
          concurrencyLimit: limit,
        }),
      ),
    );
    const claimedBeforeReap = claims.filter((outcome) => outcome.status === 'claimed').length;
    const runningAtPeak = await store.findExpiredJobLeases(T0 + 2 * SECOND, 100);

    for (const job of runningAtPeak) {
      await store.finishJob({
        jobId: job.id,
        owner: job.leaseOwner ?? '',
        result: {
          outcome: 'abandoned',
          startedAt: job.startedAt,
          finishedAt: T0 + 2 * SECOND,
          attempt: job.attempt,
        },
        expiresAt: T0 + MINUTE,
      });
    }
    const afterReap = await Promise.all(
      range(3).map((n) =>
        store.claimJob({
          job: jobRequest(`after-${n}`, { task: 'limited' }),
          attempt: 1,
          owner: 'healthy',
          now: T0 + 3 * SECOND,
          leaseUntil: T0 + MINUTE,
          concurrencyLimit: limit,
        }),
      ),
    );

    expect(claimedBeforeReap).toBe(limit);
    expect(runningAtPeak).toHaveLength(limit);
    expect(afterReap.map((outcome) => outcome.status)).toEqual(['claimed', 'claimed', 'claimed']);
    expect((await store.runningCounts()).get('limited')).toBe(limit);
  });
}
