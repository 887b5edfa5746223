import type { JsonValue } from '../../../lib/core/json';
import type { Job } from '../../../lib/core/model/job';
import { fireRevisionOf } from '../../../lib/core/model/schedule-revision';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import { SECOND, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';
import type { HarnessOptions } from './harness';

const every10s = { type: 'interval', seconds: 10, start_at: new Date(T0).toISOString() } as const;

/**
 * A fire sent as v1 is claimed after the update to v2 returned: its check cancels it and sends it again
 * as v2. The update to v3 returns; then the v2 copy reclaims the fire and its worker vanishes before its
 * check. The v2 copy comes back after the lease and takes the run over. Returns each run of the fire
 * (`attempt:v<payload v>`) and the fire's job at the end.
 */
export async function reclaimedAfterSecondUpdate(
  options: HarnessOptions = {},
): Promise<{ runs: string[]; job: Job | undefined }> {
  const runs: string[] = [];
  const id = 'reclaimed-after-update';
  const jobId = `${id}@${T0 + 20 * SECOND}`;
  const p = adminAndWorker(
    {
      beat: {
        handler: (payload: JsonValue, context: { jobId: string; attempt: number }) => {
          if (context.jobId === jobId) runs.push(`${context.attempt}:v${(payload as { v: number }).v}`);
        },
      },
    },
    options,
  );
  await p.admin({ action: 'add_schedule', id, task: 'beat', trigger: every10s, payload: { v: 1 } });
  await p.deliverDue(15);
  const takeCopy = () => {
    const index = p.queue.sent.findIndex((message) => message.job.id === jobId);
    const [message] = p.queue.sent.splice(index, 1);
    if (index < 0 || !message) throw new Error(`no message for ${jobId}`);
    return message;
  };
  const sentAsV1 = takeCopy();
  await p.admin({ action: 'update_schedule', id, payload: { v: 2 } });
  p.clock.set(T0 + 20 * SECOND);
  await p.deliver(sentAsV1);
  const sentAsV2 = takeCopy();
  if ((sentAsV2.job.payload as { v: number }).v !== 2)
    throw new Error('the check did not send the fire as v2');

  p.clock.advance(SECOND);
  await p.admin({ action: 'update_schedule', id, payload: { v: 3 } });
  p.clock.advance(SECOND);
  await p.claimAndVanish(sentAsV2);
  p.clock.advance(60 * SECOND);
  await p.deliver(sentAsV2);
  await p.deliverDue(200);
  return { runs, job: await p.deps.jobStore.getJob(jobId, p.clock.now()) };
}

/**
 * The reclaim fixed the run's definition after v3 returned: the takeover judges the fire afresh, so it
 * runs once, as v3 (as the attempt the takeover cancelled), never as v2.
 */
export const RUNS_AFTER_RECLAIM = ['2:v3'];

/**
 * The one fire of a rate-limited task's schedule (one start a second) is claimed at +20 s and its worker vanishes before
 * its check; the schedule is removed; at +80 s another job of the task takes the rate's start, and the
 * fire's message comes back after the lease and takes the run over: it waits in the task's line for the
 * next start. Returns each run of the fire and its job at the end.
 */
export async function takeoverWaitsForItsStart(
  options: HarnessOptions = {},
): Promise<{ runs: string[]; job: Job | undefined }> {
  const runs: string[] = [];
  const id = 'waits-for-start';
  const jobId = `${id}@${T0 + 20 * SECOND}`;
  const p = adminAndWorker(
    {
      rated: {
        rateLimit: { max: 1, perSeconds: 1 },
        handler: (_payload: JsonValue, context: { jobId: string; attempt: number }) => {
          if (context.jobId === jobId) runs.push(`${context.attempt}`);
        },
      },
    },
    options,
  );
  const once = { type: 'date', run_at: new Date(T0 + 20 * SECOND).toISOString() };
  await p.admin({ action: 'add_schedule', id, task: 'rated', trigger: once, payload: { v: 1 } });
  const index = p.queue.sent.findIndex((message) => message.job.id === jobId);
  const [message] = p.queue.sent.splice(index, 1);
  if (index < 0 || !message) throw new Error(`no message for ${jobId}`);
  p.clock.set(T0 + 20 * SECOND);
  await p.claimAndVanish(message);
  await p.admin({ action: 'remove_schedule', id });

  p.clock.advance(60 * SECOND);
  await p.admin({ action: 'add_job', task: 'rated', job_id: `${id}-takes-the-start` });
  await p.deliverDue(80);
  await p.deliver(message);
  await p.deliverDue(120);
  return { runs, job: await p.deps.jobStore.getJob(jobId, p.clock.now()) };
}

/**
 * A takeover's copy waits in its rate's line while another delivery's check cancels the fire (the run was
 * stale), and the schedule is updated again before the copy is woken: the copy must leave that
 * cancellation to the current definition's copy, never take it back as the run it took over. Returns
 * each run of the fire (`attempt:v<payload v>`) and its job at the end.
 */
export async function takeoverCopyMeetsACancellation(
  options: HarnessOptions = {},
): Promise<{ runs: string[]; job: Job | undefined; woken: number; wokenAsV3: number }> {
  const runs: string[] = [];
  const id = 'copy-meets-cancellation';
  const jobId = `${id}@${T0 + 20 * SECOND}`;
  const p = adminAndWorker(
    {
      metered: {
        rateLimit: { max: 1, perSeconds: 1 },
        handler: (payload: JsonValue, context: { jobId: string; attempt: number }) => {
          if (context.jobId === jobId) runs.push(`${context.attempt}:v${(payload as { v: number }).v}`);
        },
      },
    },
    options,
  );
  const copies = () => {
    const taken = p.queue.sent.filter((message) => message.job.id === jobId);
    const others = p.queue.sent.filter((message) => message.job.id !== jobId);
    p.queue.sent.splice(0, p.queue.sent.length, ...others);
    return taken;
  };
  const hourly = { type: 'interval', hours: 1, start_at: new Date(T0 + 20 * SECOND).toISOString() };
  await p.admin({ action: 'add_schedule', id, task: 'metered', trigger: hourly, payload: { v: 1 } });
  const [sentAsV1] = copies();
  if (!sentAsV1) throw new Error(`no message for ${jobId}`);
  await p.admin({ action: 'update_schedule', id, payload: { v: 2 } });
  copies();
  const v2 = await p.deps.scheduleStore.getSchedule(id);
  if (!v2) throw new Error(`no schedule ${id}`);
  // What the check that cancels the stale run sends in its place
  const sentAsV2: JobMessage = {
    ...sentAsV1,
    job: { ...sentAsV1.job, payload: v2.payload },
    revision: fireRevisionOf(v2),
  };
  // The stale v1 copy is claimed after the update, and its worker vanishes before its check
  p.clock.set(T0 + 20 * SECOND);
  await p.claimAndVanish(sentAsV1);

  // At +80 s another job takes the rate's start; the v1 copy takes the run over and waits in line
  p.clock.set(T0 + 80 * SECOND);
  await p.admin({ action: 'add_job', task: 'metered', job_id: `${id}-takes-the-start` });
  await p.deliverDue(80);
  await p.deliver(sentAsV1);
  const waiting = copies();

  // Another delivery takes the run over and its check cancels the stale run; then a second update
  p.clock.set(T0 + 81 * SECOND);
  const now = p.clock.now();
  const other = await p.deps.jobStore.claimJob({
    job: sentAsV1.job,
    attempt: 2,
    owner: 'other-takeover',
    now,
    leaseUntil: now + 30 * SECOND,
  });
  if (other.status !== 'claimed') throw new Error(`the other takeover did not claim: ${other.status}`);
  await p.deps.jobStore.finishJob({
    jobId,
    owner: 'other-takeover',
    result: {
      outcome: 'cancelled',
      error: { type: 'ScheduleChanged', message: 'stale run, sent again as v2' },
      startedAt: null,
      finishedAt: now,
      attempt: 2,
    },
    expiresAt: now + 600 * SECOND,
    reclaimable: true,
  });
  await p.admin({ action: 'update_schedule', id, payload: { v: 3 } });
  copies();

  // Act: the waiting takeover copy is woken; then the copy the cancelling check sent comes, whose own
  // check sends the fire again as v3. That copy finds the rate's start taken and waits in line as the
  // attempt it reclaims; it is woken 5 s later.
  for (const message of waiting) await p.deliver(message);
  p.clock.set(T0 + 90 * SECOND);
  await p.deliver(sentAsV2);
  for (const message of copies()) await p.deliver(message);
  const wokenAsV3 = copies();
  p.clock.set(T0 + 95 * SECOND);
  for (const message of wokenAsV3) await p.deliver(message);
  await p.deliverDue(120);
  return {
    runs,
    job: await p.deps.jobStore.getJob(jobId, p.clock.now()),
    woken: waiting.length,
    wokenAsV3: wokenAsV3.length,
  };
}
