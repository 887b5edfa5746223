import type { JsonValue } from '../../../lib/core/json';
import type { Job } from '../../../lib/core/model/job';
import { fireRevisionOf } from '../../../lib/core/model/schedule-revision';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import { SECOND, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';
import type { HarnessOptions } from './harness';

const every10s = { type: 'interval', seconds: 10, start_at: new Date(T0).toISOString() } as const;

type TaskSettings = { rateLimit?: { max: number; perSeconds: number }; maxRunningJobs?: number };

/**
 * The worker and the admin API (`adminAndWorker`) with one task, `task`, and the fire of schedule `id`
 * due at +20 s: its runs (`attempt:v<payload v>`), `copies()` (takes every queued message of it out of
 * the queue), `copyAs()` (a copy of a message as the schedule now defines the fire: what a check sends
 * in its place) and `ended()` (its runs and its job).
 */
function fireOf(id: string, task: string, settings: TaskSettings, options: HarnessOptions) {
  const runs: string[] = [];
  const jobId = `${id}@${T0 + 20 * SECOND}`;
  const handler = (payload: JsonValue, context: { jobId: string; attempt: number }) => {
    if (context.jobId === jobId) runs.push(`${context.attempt}:v${(payload as { v: number }).v}`);
  };
  const p = adminAndWorker({ [task]: { ...settings, handler } }, options);
  const copies = (): JobMessage[] => {
    const taken = p.queue.sent.filter((message) => message.job.id === jobId);
    const others = p.queue.sent.filter((message) => message.job.id !== jobId);
    p.queue.sent.splice(0, p.queue.sent.length, ...others);
    return taken;
  };
  const firstCopy = (): JobMessage => {
    const [message] = copies();
    if (!message) throw new Error(`no message for ${jobId}`);
    return message;
  };
  const copyAs = async (message: JobMessage): Promise<JobMessage> => {
    const schedule = await p.deps.scheduleStore.getSchedule(id);
    if (!schedule) throw new Error(`no schedule ${id}`);
    return {
      ...message,
      job: { ...message.job, payload: schedule.payload },
      revision: fireRevisionOf(schedule),
    };
  };
  const ended = async () => ({ runs, job: await p.deps.jobStore.getJob(jobId, p.clock.now()) });
  return { p, jobId, copies, firstCopy, copyAs, ended };
}

/**
 * A fire sent as v1 is claimed after the update to v2 returned: its check cancels it and sends it again
 * as v2. The update to v3 returns; then the v2 copy's check fails, it reclaims the fire with that
 * outcome, and its worker vanishes before it cancels. The v2 copy comes back after the lease and takes
 * the run over. Returns each run of the fire
 * (`attempt:v<payload v>`) and the fire's job at the end.
 */
export async function reclaimedAfterSecondUpdate(
  options: HarnessOptions = {},
): Promise<{ runs: string[]; job: Job | undefined }> {
  const id = 'reclaimed-after-update';
  const { p, firstCopy, ended } = fireOf(id, 'beat', {}, options);
  await p.admin({ action: 'add_schedule', id, task: 'beat', trigger: every10s, payload: { v: 1 } });
  await p.deliverDue(15);
  const sentAsV1 = firstCopy();
  await p.admin({ action: 'update_schedule', id, payload: { v: 2 } });
  p.clock.set(T0 + 20 * SECOND);
  await p.deliver(sentAsV1);
  const sentAsV2 = firstCopy();
  if ((sentAsV2.job.payload as { v: number }).v !== 2)
    throw new Error('the check did not send the fire as v2');

  p.clock.advance(SECOND);
  await p.admin({ action: 'update_schedule', id, payload: { v: 3 } });
  p.clock.advance(SECOND);
  await p.claimAndVanish(sentAsV2);
  p.clock.advance(60 * SECOND);
  await p.deliver(sentAsV2);
  await p.deliverDue(200);
  return ended();
}

/**
 * The reclaim's check failed (v3 had returned): the takeover decides the fire afresh, so it runs once, as
 * v3 (as the attempt the takeover cancelled), never as v2.
 */
export const RUNS_AFTER_RECLAIM = ['2:v3'];

/**
 * The one fire of a rate-limited task's schedule (one start a second): the schedule is removed, then the
 * fire is checked and claimed at +20 s (its check failed) and its worker vanishes before it cancels; at
 * +80 s another job of the task takes the rate's start, and the fire's message comes back after the
 * lease and takes the run over: it waits in the task's line for the next start, and is checked when it
 * claims. Returns each run of the fire and its job at the end.
 */
export async function takeoverWaitsForItsStart(
  options: HarnessOptions = {},
): Promise<{ runs: string[]; job: Job | undefined }> {
  const id = 'waits-for-start';
  const { p, firstCopy, ended } = fireOf(id, 'rated', { rateLimit: { max: 1, perSeconds: 1 } }, options);
  const once = { type: 'date', run_at: new Date(T0 + 20 * SECOND).toISOString() };
  await p.admin({ action: 'add_schedule', id, task: 'rated', trigger: once, payload: { v: 1 } });
  const message = firstCopy();
  await p.admin({ action: 'remove_schedule', id });
  p.clock.set(T0 + 20 * SECOND);
  await p.claimAndVanish(message);

  p.clock.advance(60 * SECOND);
  await p.admin({ action: 'add_job', task: 'rated', job_id: `${id}-takes-the-start` });
  await p.deliverDue(80);
  await p.deliver(message);
  await p.deliverDue(120);
  return ended();
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
  const id = 'copy-meets-cancellation';
  const { p, jobId, copies, firstCopy, copyAs, ended } = fireOf(
    id,
    'metered',
    { rateLimit: { max: 1, perSeconds: 1 } },
    options,
  );
  const hourly = { type: 'interval', hours: 1, start_at: new Date(T0 + 20 * SECOND).toISOString() };
  await p.admin({ action: 'add_schedule', id, task: 'metered', trigger: hourly, payload: { v: 1 } });
  const sentAsV1 = firstCopy();
  await p.admin({ action: 'update_schedule', id, payload: { v: 2 } });
  copies();
  // What the check that cancels the stale run sends in its place
  const sentAsV2 = await copyAs(sentAsV1);
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
  return { ...(await ended()), woken: waiting.length, wokenAsV3: wokenAsV3.length };
}

/**
 * A stale copy reclaims a fire: the fire's v2 copy, after the update to v3 returned (its check failed).
 * Its worker vanishes before it cancels, the schedule is updated to v4, and a v3 copy of the fire (not
 * the run's payload) comes back after the lease and takes the run over. Returns each run of the fire and its job at the end.
 */
export async function staleReclaimTakenOverByNewerCopy(
  options: HarnessOptions = {},
): Promise<{ runs: string[]; job: Job | undefined }> {
  const id = 'stale-reclaim';
  const { p, copies, firstCopy, copyAs, ended } = fireOf(id, 'beat', {}, options);
  await p.admin({ action: 'add_schedule', id, task: 'beat', trigger: every10s, payload: { v: 1 } });
  await p.deliverDue(15);
  const sentAsV1 = firstCopy();
  await p.admin({ action: 'update_schedule', id, payload: { v: 2 } });
  copies();
  const sentAsV2 = await copyAs(sentAsV1);
  await p.admin({ action: 'update_schedule', id, payload: { v: 3 } });
  copies();
  const sentAsV3 = await copyAs(sentAsV1);

  // The v1 copy's check cancels the fire; the stale v2 copy reclaims it and its worker vanishes
  p.clock.set(T0 + 20 * SECOND);
  await p.deliver(sentAsV1);
  copies();
  p.clock.set(T0 + 21 * SECOND);
  await p.claimAndVanish(sentAsV2);
  p.clock.set(T0 + 22 * SECOND);
  await p.admin({ action: 'update_schedule', id, payload: { v: 4 } });
  copies();

  // Act: after the lease, the v3 copy takes the run over
  p.clock.advance(60 * SECOND);
  await p.deliver(sentAsV3);
  await p.deliverDue(200);
  return ended();
}

/**
 * A fire sent as v1 is checked and claimed at +20 s, and its worker vanishes (its check passed: its
 * handler may have started). An update to v2 whose request began half a second before that check
 * lands only now (its read was slow). The v1 copy comes back after the lease and takes the run over.
 * Returns each run of the fire and its job at the end.
 */
export async function updateTimedBeforeCheckLandsAfterIt(
  options: HarnessOptions = {},
): Promise<{ runs: string[]; job: Job | undefined }> {
  const id = 'update-lands-late';
  const { p, copies, firstCopy, ended } = fireOf(id, 'beat', {}, options);
  await p.admin({ action: 'add_schedule', id, task: 'beat', trigger: every10s, payload: { v: 1 } });
  await p.deliverDue(15);
  const sentAsV1 = firstCopy();
  p.clock.set(T0 + 20 * SECOND);
  await p.claimAndVanish(sentAsV1);
  p.clock.set(T0 + 19_500);
  await p.admin({ action: 'update_schedule', id, payload: { v: 2 } });
  copies();

  // Act: after the lease, the v1 copy takes the run over
  p.clock.set(T0 + 80 * SECOND);
  await p.deliver(sentAsV1);
  await p.deliverDue(200);
  return ended();
}

/**
 * Two updates (to v2, then v3) answer before a fire's stale v1 copy is checked and claimed, 10 s later;
 * its worker vanishes before it cancels. The v1 copy comes back after the lease and takes the run over.
 * Returns each run of the fire and its job at the end.
 */
export async function staleCopyAfterTwoUpdates(
  options: HarnessOptions = {},
): Promise<{ runs: string[]; job: Job | undefined }> {
  const id = 'stale-after-two';
  const { p, copies, firstCopy, ended } = fireOf(id, 'beat', {}, options);
  await p.admin({ action: 'add_schedule', id, task: 'beat', trigger: every10s, payload: { v: 1 } });
  await p.deliverDue(15);
  const sentAsV1 = firstCopy();
  await p.admin({ action: 'update_schedule', id, payload: { v: 2 } });
  await p.admin({ action: 'update_schedule', id, payload: { v: 3 } });
  copies();
  p.clock.set(T0 + 25 * SECOND);
  await p.claimAndVanish(sentAsV1);

  // Act: after the lease, the v1 copy takes the run over
  p.clock.set(T0 + 85 * SECOND);
  await p.deliver(sentAsV1);
  await p.deliverDue(200);
  return ended();
}

/**
 * A fire of a task with one slot: its stale v1 copy is checked after the update to v2 returned (the
 * check fails) and claimed with the slot, and its worker vanishes before it cancels. The tick's reaper
 * hands the run to attempt 2 once its lease ended. Returns each run of the fire and its job at the end.
 */
export async function reapedAfterFailedCheck(
  options: HarnessOptions = {},
): Promise<{ runs: string[]; job: Job | undefined }> {
  const id = 'reaped-after-failed-check';
  const { p, copies, firstCopy, ended } = fireOf(id, 'single', { maxRunningJobs: 1 }, options);
  await p.admin({ action: 'add_schedule', id, task: 'single', trigger: every10s, payload: { v: 1 } });
  await p.deliverDue(15);
  const sentAsV1 = firstCopy();
  await p.admin({ action: 'update_schedule', id, payload: { v: 2 } });
  copies();
  p.clock.set(T0 + 20 * SECOND);
  await p.claimAndVanish(sentAsV1, 1);

  // Act: after the lease, the tick reaps the run; its next attempt is delivered
  p.clock.set(T0 + 80 * SECOND);
  await p.tick();
  await p.deliverDue(200);
  return ended();
}

/** How the resume's copy meets the failed run (`resumedCopyMeetsAFailedCheck`): each names a wait of its own. */
export const RESUMED_COPY_VARIANTS = [
  ['takes the run over', {}],
  ['comes back while the stalled run waits for the reaper, then takes the fire back', { slotLimit: 1 }],
  [
    "comes back while the reaper's attempt is on its way, then takes the fire back",
    { slotLimit: 1, copyAfterTick: true },
  ],
] as const;

/**
 * A fire's stale copy (sent before a pause) is checked after a resume with `replay_missed` sent the
 * fire again under the new revision; the stale copy's check fails, it claims the fire (with a slot of
 * the task's, for `maxRunningJobs: 1`) and its worker vanishes before it cancels. The resume's copy
 * comes while that claim runs, and again until it can have the fire (taking the run over, or, for a
 * slot holder, once the tick's reaper handed the run to its next attempt and that attempt's check
 * cancelled it); each minute before the tick, or (`copyAfterTick`) after it. The resume planned the
 * fire itself, so only its copy may run it. Returns each run of
 * the fire and its job at the end.
 */
export async function resumedCopyMeetsAFailedCheck(
  options: HarnessOptions & { slotLimit?: number; copyAfterTick?: boolean } = {},
): Promise<{ runs: string[]; job: Job | undefined }> {
  const { slotLimit, copyAfterTick, ...harness } = options;
  const id = `resumed-copy${slotLimit === undefined ? '' : '-limited'}${copyAfterTick ? '-late' : ''}`;
  const settings = slotLimit === undefined ? {} : { maxRunningJobs: slotLimit };
  const { p, copies, firstCopy, ended } = fireOf(id, 'beat', settings, harness);
  await p.admin({ action: 'add_schedule', id, task: 'beat', trigger: every10s, payload: { v: 1 } });
  await p.deliverDue(15);
  const stale = firstCopy();
  copies();
  await p.admin({ action: 'pause_schedule', id });
  p.clock.set(T0 + 25 * SECOND);
  await p.admin({ action: 'resume_schedule', id, replay_missed: true });
  const resumed = copies().find((message) => message.job.id === stale.job.id);
  if (!resumed) throw new Error('the resume did not send the fire again');
  await p.claimAndVanish(stale, slotLimit);
  p.clock.set(T0 + 26 * SECOND);
  const comesBack = async () => (await p.deliver(resumed)).batchItemFailures.length > 0;
  let back = await comesBack();

  // Act: the resume's copy comes back after the lease; every minute the tick runs, and what the queue
  // holds then (the copy sent again to wait, the reaper's attempt) is delivered once
  for (let minute = 1; minute <= 3; minute++) {
    p.clock.set(T0 + (26 + minute * 60) * SECOND);
    if (back && !copyAfterTick) back = await comesBack();
    await p.tick();
    if (back && copyAfterTick) back = await comesBack();
    for (const message of copies()) await p.deliver(message);
  }
  return ended();
}

/**
 * A fire is sent as v1 (the stale copy); a pause and a resume with `replay_missed` send it again (the
 * resume's copy); an update to v2 (the same trigger) sends no copies, so the resume's copy, checked
 * after it, must be replaced. That check fails, its claim stores so, and its worker loses the run
 * (late: its message goes with the lease it lost). After the lease, the stale copy takes the run over.
 * Returns each run of the fire and its job at the end.
 */
export async function olderCopyTakesOverAFailedCheck(
  options: HarnessOptions = {},
): Promise<{ runs: string[]; job: Job | undefined }> {
  const id = 'older-copy';
  const { p, copies, firstCopy, ended } = fireOf(id, 'beat', {}, options);
  await p.admin({ action: 'add_schedule', id, task: 'beat', trigger: every10s, payload: { v: 1 } });
  await p.deliverDue(15);
  const stale = firstCopy();
  copies();
  await p.admin({ action: 'pause_schedule', id });
  p.clock.set(T0 + 16 * SECOND);
  await p.admin({ action: 'resume_schedule', id, replay_missed: true });
  const resumed = copies().find((message) => message.job.id === stale.job.id);
  if (!resumed) throw new Error('the resume did not send the fire again');
  p.clock.set(T0 + 21 * SECOND);
  await p.admin({ action: 'update_schedule', id, payload: { v: 2 } });
  copies();
  p.clock.set(T0 + 22 * SECOND);
  await p.claimAndVanish(resumed);

  // Act: after the lease, the stale copy takes the run over
  p.clock.set(T0 + 82 * SECOND);
  await p.deliver(stale);
  await p.deliverDue(200);
  return ended();
}
