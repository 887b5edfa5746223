import { beforeEach, expect, it } from 'vitest';
import type { ClaimJobInput, JobRequest } from '../../lib/core/ports/job-store';
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
 * The jobs of a task, latest first: a fire's job at its fire time (the DynamoDB store lists fires noted in
 * the task's fire log before their send from there, without an index entry per job) and any other job at
 * its run time, each exactly once across pages, however the fires were noted: once, twice (two ticks that
 * overlapped), not at all (a sender that does not note), or under the task they no longer run as.
 */
export function taskListingContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    ({ store } = fixture());
  });

  const claim = (request: JobRequest, extra: Partial<ClaimJobInput> = {}) =>
    store.claimJob({ job: request, attempt: 1, owner: 'w', now: T0, leaseUntil: T0 + MINUTE, ...extra });
  const run = async (request: JobRequest, extra: Partial<ClaimJobInput> = {}) => {
    await claim(request, extra);
    await store.finishJob({ jobId: request.id, owner: 'w', result: SUCCESS, expiresAt: T0 + 10 * MINUTE });
  };
  /** Notes the fires as a tick does before sending them, and runs those it noted as the worker does. */
  const sendAndRun = async (requests: JobRequest[]) => {
    const logged = await store.logFiresToSend(requests, T0);
    for (const request of requests) await run(request, { taskLogged: logged.has(request.id) });
  };

  const collect = (filter: Parameters<Store['listJobs']>[0], limit: number) =>
    listedIds(store, filter, limit);

  it("lists a task's fires at their fire times and its other jobs at their run times, each once across pages", async () => {
    // Fires of 'a' and 'b' every 20 s over three minutes (several log items per minute), jittered
    const fires = [0, 20, 40, 60, 80, 100, 120, 140].flatMap((seconds) => [
      fire('a', T0 + seconds * SECOND, { runAt: T0 + seconds * SECOND + 700 }),
      fire('b', T0 + seconds * SECOND + 300, { runAt: T0 + seconds * SECOND + 900 }),
    ]);
    await sendAndRun(fires.slice(0, 6));
    await sendAndRun(fires.slice(6, 11));
    // A round noted again by an overlapping tick: the same fires, run once
    await store.logFiresToSend(fires.slice(8, 14), T0);
    for (const request of fires.slice(11, 14)) await run(request, { taskLogged: true });
    // One noted, claimed and retried (to a later run time); one sent without a note; one noted, never run;
    const retried = fires[14] as JobRequest;
    await store.logFiresToSend([retried], T0);
    await claim(retried, { taskLogged: true });
    await retryFirstAttempt(store, retried.id, T0 + 10 * MINUTE);
    await run(fire('c', T0 + 50 * SECOND));
    await store.logFiresToSend([fires[15] as JobRequest], T0);
    // One noted and then delivered by a message without the mark: in the log and in the index
    const twice = fire('d', T0 + 70 * SECOND);
    await store.logFiresToSend([twice], T0);
    await run(twice);
    // Other jobs of the task, between the fires; jobs of another task
    await run(jobRequest('adhoc-1', { runAt: T0 + 45 * SECOND }));
    await run(jobRequest('adhoc-2', { runAt: T0 + 125 * SECOND }));
    await run(jobRequest('a@run-now', { origin: 'run_now', scheduleId: 'a', runAt: T0 + 20 * SECOND }));
    await sendAndRun([fire('x', T0 + 30 * SECOND, { task: 'other' })]);

    const listed = [
      ...fires.slice(0, 15).map((request) => ({ id: request.id, time: request.fireTime ?? 0 })),
      { id: `c@${T0 + 50 * SECOND}`, time: T0 + 50 * SECOND },
      { id: twice.id, time: T0 + 70 * SECOND },
      { id: 'adhoc-1', time: T0 + 45 * SECOND },
      { id: 'adhoc-2', time: T0 + 125 * SECOND },
      { id: 'a@run-now', time: T0 + 20 * SECOND },
    ];
    const expected = listed
      .sort((x, y) => y.time - x.time || (x.id < y.id ? -1 : 1))
      .map((entry) => entry.id);
    for (const limit of [1, 2, 3, 7, 50])
      expect(await collect({ task: 'send-report' }, limit)).toEqual(expected);
    expect(await collect({ task: 'other' }, 2)).toEqual([`x@${T0 + 30 * SECOND}`]);
    expect(await store.getJob(retried.id, T0)).toMatchObject({ status: 'retrying', runAt: T0 + 10 * MINUTE });
  });

  it('lists a fire noted under one task and run as another (its schedule changed) under the one it ran as', async () => {
    const moved = fire('m', T0);
    await store.logFiresToSend([moved], T0);
    // The worker cancels the fire and sends it again as the schedule's new task, without a note
    await run({ ...moved, task: 'other' });

    expect(await collect({ task: 'send-report' }, 5)).toEqual([]);
    expect(await collect({ task: 'other' }, 5)).toEqual([moved.id]);
  });

  it('keeps a fire cancelled between pages at its fire time, so paging on still lists it once', async () => {
    const retried = fire('s', T0);
    await store.logFiresToSend([retried], T0);
    await claim(retried, { taskLogged: true });
    await retryFirstAttempt(store, retried.id, T0 + 2 * MINUTE);
    // A queued fire cancelled before any claim, its message carrying a jittered run time
    const queued = fire('q', T0 + SECOND, { runAt: T0 + 40 * MINUTE });
    await store.logFiresToSend([queued], T0);
    for (const [id, at] of [
      ['mid', T0 + 30 * MINUTE],
      ['new', T0 + 50 * MINUTE],
    ] as const) {
      await store.createJob({
        job: jobRequest(id, { runAt: at }),
        conflictPolicy: 'exception',
        now: at,
        parkUntilDue: false,
      });
    }
    const now = T0 + 60 * MINUTE;
    const first = await store.listJobs({ task: 'send-report' }, { limit: 1 }, now);
    // `cancel_job` passes no request for a job the store holds, and the message's request for one it does not
    await store.cancelJob(retried.id, now, now + 10 * MINUTE);
    await store.cancelJob(queued.id, now, now + 10 * MINUTE, queued);
    const ids = first.items.map((job) => job.id);
    if (first.cursor !== undefined)
      ids.push(...(await listedIds(store, { task: 'send-report' }, 1, now, first.cursor)));

    expect(ids).toEqual(['new', 'mid', queued.id, retried.id]);
    expect(await listedIds(store, { task: 'send-report' }, 10, now)).toEqual(ids);
  });

  it("narrows a task's listing by status and metadata", async () => {
    const done = fire('s', T0, { metadata: { tenant: 'acme' } });
    const running = fire('s', T0 + SECOND, { metadata: { tenant: 'acme' } });
    const other = fire('s', T0 + 2 * SECOND, { metadata: { tenant: 'beta' } });
    const logged = await store.logFiresToSend([done, running, other], T0);
    await run(done, { taskLogged: logged.has(done.id) });
    await claim(running, { taskLogged: logged.has(running.id) });
    await run(other, { taskLogged: logged.has(other.id) });

    expect(await collect({ task: 'send-report', status: 'running' }, 1)).toEqual([running.id]);
    expect(await collect({ task: 'send-report', metadata: { tenant: 'acme' } }, 1)).toEqual([
      running.id,
      done.id,
    ]);
  });
}
