import { beforeEach, expect, it } from 'vitest';
import type { JobRequest } from '../../lib/core/ports/job-store';
import {
  fireRequest,
  jobRequest,
  listedIds,
  MINUTE,
  retryFirstAttempt,
  SECOND,
  type Store,
  type StoreFixture,
  SUCCESS,
  T0,
} from './store-fixtures';

const fire = fireRequest;

/**
 * The jobs of a schedule's fires (`<schedule id>@<fire time>`): read, cancelled and listed like any job;
 * a schedule lists them latest fire time first (the DynamoDB store keeps them in the schedule's own
 * partition, ordered by fire time) and its run-now jobs at their run time, each exactly once across pages.
 */
export function fireJobsContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    ({ store } = fixture());
  });

  const run = async (request: JobRequest) => {
    await store.claimJob({ job: request, attempt: 1, owner: 'w', now: T0, leaseUntil: T0 + MINUTE });
    await store.finishJob({ jobId: request.id, owner: 'w', result: SUCCESS, expiresAt: T0 + 10 * MINUTE });
  };

  const collect = (filter: Parameters<Store['listJobs']>[0], limit: number) =>
    listedIds(store, filter, limit);

  it('reads a fire job by its id, with its schedule and fire time', async () => {
    await run(fire('nightly', T0, { runAt: T0 + 3 * SECOND }));

    const job = await store.getJob(`nightly@${T0}`, T0);

    expect(job).toMatchObject({
      id: `nightly@${T0}`,
      scheduleId: 'nightly',
      fireTime: T0,
      runAt: T0 + 3 * SECOND,
      origin: 'schedule',
      status: 'success',
    });
    expect(await store.getJob(`nightly@${T0 + SECOND}`, T0)).toBeUndefined();
    expect(await store.getJob(`night@${T0}`, T0)).toBeUndefined();
  });

  it("lists a schedule's fires by fire time and its run-now jobs by run time, each once across pages", async () => {
    // Fires of 's' at T0 + 0..9 s, jittered by up to 0.9 s, one of them retried to a later run time;
    // two run-now jobs between them; jobs of other schedules whose ids share a prefix
    for (let second = 0; second < 10; second++) {
      const jitter = ((second * 7) % 10) * 90;
      const request = fire('s', T0 + second * SECOND, { runAt: T0 + second * SECOND + jitter });
      if (second !== 2) await run(request);
    }
    const retried = fire('s', T0 + 2 * SECOND);
    await store.claimJob({ job: retried, attempt: 1, owner: 'w', now: T0, leaseUntil: T0 + MINUTE });
    await retryFirstAttempt(store, retried.id, T0 + MINUTE);
    await run(jobRequest('s@run-a', { origin: 'schedule', scheduleId: 's', runAt: T0 + 4_500 }));
    await run(jobRequest('s@run-b', { origin: 'schedule', scheduleId: 's', runAt: T0 + 9_500 }));
    await run(fire('s2', T0 + 5 * SECOND));
    await run(fire('s-0', T0 + 5 * SECOND));

    const expected = [
      's@run-b',
      `s@${T0 + 9 * SECOND}`,
      `s@${T0 + 8 * SECOND}`,
      `s@${T0 + 7 * SECOND}`,
      `s@${T0 + 6 * SECOND}`,
      `s@${T0 + 5 * SECOND}`,
      's@run-a',
      `s@${T0 + 4 * SECOND}`,
      `s@${T0 + 3 * SECOND}`,
      `s@${T0 + 2 * SECOND}`,
      `s@${T0 + 1 * SECOND}`,
      `s@${T0}`,
    ];
    for (const limit of [1, 2, 5, 50]) expect(await collect({ scheduleId: 's' }, limit)).toEqual(expected);
    expect(await collect({ scheduleId: 's2' }, 3)).toEqual([`s2@${T0 + 5 * SECOND}`]);
    expect(await collect({ task: 'send-report' }, 50)).toHaveLength(14);
  });

  it("narrows a schedule's listing by status and task", async () => {
    await run(fire('s', T0));
    await store.claimJob({
      job: fire('s', T0 + SECOND),
      attempt: 1,
      owner: 'w',
      now: T0,
      leaseUntil: T0 + MINUTE,
    });
    await run(fire('s', T0 + 2 * SECOND, { task: 'other' }));

    expect(await collect({ scheduleId: 's', status: 'running' }, 1)).toEqual([`s@${T0 + SECOND}`]);
    expect(await collect({ scheduleId: 's', task: 'other' }, 1)).toEqual([`s@${T0 + 2 * SECOND}`]);
    expect(await collect({ scheduleId: 's', task: 'send-report', status: 'success' }, 1)).toEqual([
      `s@${T0}`,
    ]);
  });

  it('cancels a fire that has not run, and lists the cancellation under its schedule', async () => {
    const cancelled = await store.cancelJob(`s@${T0}`, T0, T0 + MINUTE, fire('s', T0));
    const claim = await store.claimJob({
      job: fire('s', T0),
      attempt: 1,
      owner: 'w',
      now: T0,
      leaseUntil: T0 + MINUTE,
    });

    expect(cancelled).toMatchObject({ id: `s@${T0}`, scheduleId: 's', status: 'cancelled' });
    expect(claim.status).toBe('cancelled');
    expect(await collect({ scheduleId: 's' }, 5)).toEqual([`s@${T0}`]);
    expect(await collect({ status: 'cancelled' }, 5)).toEqual([`s@${T0}`]);
  });
}
