import { describe, expect, it } from 'vitest';
import { idAtPhase } from '../support';
import { createHarness, errorOf, type Harness, MINUTE, SECOND, T0 } from './support/harness';

/** A schedule whose chunks start at the grid's own boundaries (T0 is one): which fires are sent ahead depends on it. */
const SWEEP = idAtPhase('sweep');

interface JobAnswer {
  id: string;
  status: string;
  payload: unknown;
  run_at: string;
  start_deadline: string | null;
}

const fireId = (seconds: number) => `${SWEEP}@${T0 + seconds * SECOND}`;

/** `sweep`: a cleanup every 30 s from T0; add_schedule sent the fires of its first two chunks, +0 … +210 s. */
async function sweep(): Promise<Harness> {
  const h = createHarness();
  await h.ok({
    action: 'add_schedule',
    id: SWEEP,
    task: 'cleanup',
    trigger: { type: 'interval', seconds: 30 },
    payload: { dir: '/tmp' },
  });
  return h;
}

/** `sweep` a second on: the +0 fire was claimed by a worker (running); a run-now job waits. */
async function sweepStartedAndRunNow() {
  const h = await sweep();
  const now = h.clock.now();
  await h.store.claimJob({ job: fireRequest(0), attempt: 1, owner: 'worker', now, leaseUntil: now + MINUTE });
  h.clock.advance(SECOND);
  const runNow = await h.ok<{ job: { id: string } }>({ action: 'run_schedule_now', id: SWEEP });
  return { h, runNow };
}

async function getJob(h: Harness, seconds: number) {
  return (await h.ok<{ job: JobAnswer }>({ action: 'get_job', job_id: fireId(seconds) })).job;
}

/** Every page of `list_jobs` for the request, following the cursors. */
async function allPages(h: Harness, request: Record<string, unknown>): Promise<JobAnswer[][]> {
  const pages: JobAnswer[][] = [];
  let cursor: string | null = null;
  do {
    const page: { jobs: JobAnswer[]; cursor: string | null } = await h.ok({
      action: 'list_jobs',
      ...request,
      ...(cursor !== null && { cursor }),
    });
    pages.push(page.jobs);
    cursor = page.cursor;
  } while (cursor !== null);
  return pages;
}

describe('fires sent to the queue and not started yet', () => {
  it('are queued jobs for get_job, as the schedule will run them', async () => {
    // Prepare
    const h = await sweep();
    await h.ok({ action: 'update_schedule', id: SWEEP, payload: { dir: '/var/tmp' } });

    // Act
    const dispatched = await getJob(h, 60);
    const notAFireTime = errorOf(await h.call({ action: 'get_job', job_id: fireId(45) }));
    const notSentYet = errorOf(await h.call({ action: 'get_job', job_id: fireId(240) }));

    // Assess
    expect(dispatched).toMatchObject({
      id: fireId(60),
      status: 'queued',
      payload: { dir: '/var/tmp' },
      origin: 'schedule',
      schedule_id: SWEEP,
      attempt: 0,
      run_at: '2026-03-02T09:01:00Z',
      start_deadline: '2026-03-02T09:03:00Z',
    });
    expect([notAFireTime.code, notSentYet.code]).toEqual(['job_not_found', 'job_not_found']);
  });

  it('are not shown once the schedule is paused or removed, or long after their time', async () => {
    // Prepare
    const paused = await sweep();
    const removed = await sweep();
    const later = await sweep();

    // Act
    await paused.ok({ action: 'pause_schedule', id: SWEEP });
    await removed.ok({ action: 'remove_schedule', id: SWEEP });
    later.clock.advance(5 * MINUTE);

    // Assess
    for (const h of [paused, removed, later]) {
      expect(errorOf(await h.call({ action: 'get_job', job_id: fireId(210) })).code).toBe('job_not_found');
      expect((await allPages(h, { schedule_id: SWEEP })).flat()).toEqual([]);
    }
  });

  it('are listed with status queued, newest first, each once across pages', async () => {
    // Prepare
    const { h, runNow } = await sweepStartedAndRunNow();

    // Act
    const queued = await allPages(h, { schedule_id: SWEEP, status: 'queued', limit: 2 });
    const running = await allPages(h, { schedule_id: SWEEP, status: 'running' });

    // Assess
    expect(queued.map((page) => page.map((job) => job.id))).toEqual([
      [fireId(210), fireId(180)],
      [fireId(150), fireId(120)],
      [fireId(90), fireId(60)],
      [fireId(30), runNow.job.id],
    ]);
    expect(running.flat().map((job) => job.id)).toEqual([fireId(0)]);
  });

  it('list a schedule’s jobs recent first: the fires that are due and not started, then what ran', async () => {
    // Prepare: then the +30 fire comes due and no worker has it yet
    const { h, runNow } = await sweepStartedAndRunNow();
    const beforeDue = await allPages(h, { schedule_id: SWEEP, limit: 2 });
    h.clock.advance(30 * SECOND);

    // Act
    const pages = await allPages(h, { schedule_id: SWEEP, limit: 2 });

    // Assess: the fires at +60 … +210 are still ahead (status queued lists them)
    expect(beforeDue.map((page) => page.map((job) => `${job.id}:${job.status}`))).toEqual([
      [`${runNow.job.id}:queued`, `${fireId(0)}:running`],
    ]);
    expect(pages.map((page) => page.map((job) => `${job.id}:${job.status}`))).toEqual([
      [`${fireId(30)}:queued`, `${runNow.job.id}:queued`],
      [`${fireId(0)}:running`],
    ]);
  });

  it('can be cancelled, and then show as cancelled', async () => {
    // Prepare
    const h = await sweep();

    // Act
    const cancelled = await h.ok<{ job: JobAnswer }>({ action: 'cancel_job', job_id: fireId(60) });
    const again = await h.ok<{ job: JobAnswer }>({ action: 'cancel_job', job_id: fireId(60) });
    const queued = await allPages(h, { schedule_id: SWEEP, status: 'queued' });

    // Assess
    expect(cancelled.job).toMatchObject({ id: fireId(60), status: 'cancelled', payload: { dir: '/tmp' } });
    expect(again.job.status).toBe('cancelled');
    expect((await getJob(h, 60)).status).toBe('cancelled');
    expect(queued.flat().map((job) => job.id)).toEqual([210, 180, 150, 120, 90, 30, 0].map(fireId));
  });
});

/** What the message of the fire at `+seconds` holds. */
function fireRequest(seconds: number) {
  return {
    id: fireId(seconds),
    origin: 'schedule' as const,
    scheduleId: SWEEP,
    fireTime: T0 + seconds * SECOND,
    runAt: T0 + seconds * SECOND,
    startDeadline: null,
    task: 'cleanup',
    payload: { dir: '/tmp' },
  };
}
