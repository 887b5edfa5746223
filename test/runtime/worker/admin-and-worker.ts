import { checkedVerdict } from '../../../lib/core/delivery/fire-verdict';
import type { ScheduleRevision } from '../../../lib/core/model/schedule-revision';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import type { ClaimJobInput, JobRequest } from '../../../lib/core/ports/job-store';
import { createAdminApi } from '../../../lib/runtime/admin';
import type { RuntimeDeps } from '../../../lib/runtime/dependencies';
import { adminDependencies } from '../../../lib/runtime/handlers/admin';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { defineTask, type TaskOptions } from '../../../lib/runtime/tasks/define-task';
import { staticTaskRegistry } from '../../../lib/runtime/tasks/registry';
import { readFireSchedule, readRemoval } from '../../../lib/runtime/worker/fire-reads';
import { deliverDueMessages, SECOND, seededRandom, sqsRecord, T0 } from '../support';
import { type HarnessOptions, workerHarness } from './harness';

/** A closing note is first read at most this long after the last fire: a minute, then its schedule's phase. */
const CLOSING_READ_SECONDS = 200;

// biome-ignore lint/suspicious/noExplicitAny: test tasks take whatever payload their test sends.
type AnyTaskOptions = TaskOptions<any, any>;

/**
 * The worker and the admin API on one in-memory store (or the stores of `options`), queue and publisher,
 * with `tasks`. A tick (its dispatchers in this process, as deployed) runs only when a test calls `tick`
 * or `runUntil`. An admin write that starts a schedule's chain sends the fires of its first chunks itself
 * when they come too soon for a tick (ADR 0008): without ticks, a test sees those fires only. Messages
 * are delivered at their run time by `deliverDue`.
 */
export function adminAndWorker(tasks: Record<string, AnyTaskOptions>, options: HarnessOptions = {}) {
  const worker = workerHarness(tasks, {}, options);
  const api = createAdminApi(
    adminDependencies(
      // Its own random: the jitter of the fires it sends varies (`seededRandom`).
      { ...worker.deps, random: seededRandom() },
      staticTaskRegistry(
        Object.fromEntries(Object.entries(tasks).map(([id, task]) => [id, { default: defineTask(task) }])),
      ),
    ),
  );
  // The tick waits for its send phases by moving the clock, as deployed phases run.
  const tick = createTickHandler(() => worker.deps);
  const admin = async (request: Record<string, unknown>) => {
    const response = await api(request);
    if (!response.ok) throw new Error(`${String(request.action)}: ${JSON.stringify(response.error)}`);
    return response.result as Record<string, unknown>;
  };
  const deliver = async (message: JobMessage) => {
    if (message.job.runAt > worker.clock.now()) worker.clock.set(message.job.runAt);
    return worker.deliver([sqsRecord(message)]);
  };
  /**
   * Delivers, in run-time order, every queued message due by `T0 + seconds` (and those they send), then
   * sets the clock there; each message `deliveries` times in a row (SQS delivers at least once).
   */
  const deliverDue = async (seconds: number, deliveries = 1) => {
    const until = T0 + seconds * SECOND;
    await deliverDueMessages(worker.queue, until, async (message) => {
      for (let delivery = 0; delivery < deliveries; delivery++) await deliver(message);
    });
    worker.clock.set(Math.max(worker.clock.now(), until));
  };
  /**
   * Ticks at every multiple of `step` seconds after T0 up to `T0 + seconds`, delivering each message at
   * its run time in between (`deliverDue`).
   */
  const runUntil = async (seconds: number, step = 30) => {
    for (;;) {
      const at = Math.floor((worker.clock.now() - T0) / SECOND / step) * step + step;
      if (at > seconds) break;
      await deliverDue(at);
      await tick();
    }
    await deliverDue(seconds);
  };
  return {
    ...worker,
    api,
    admin,
    deliver,
    deliverDue,
    tick,
    runUntil,
    /**
     * Ticks (`runUntil`) until the closing note of a schedule whose last fire was at `T0 + lastFireSeconds`
     * was read once: at most a minute and a chunk after that fire (ADR 0011).
     */
    readClosingNotes: (lastFireSeconds: number) => runUntil(lastFireSeconds + CLOSING_READ_SECONDS),
    /**
     * A worker checks `message` (at the clock's time: it reads the schedule), claims it with the check's
     * outcome (and a slot of the task's `concurrencyLimit`, if given), and vanishes before it acts on it:
     * its lease ends later.
     */
    async claimAndVanish(message: JobMessage | undefined, concurrencyLimit?: number) {
      if (!message) throw new Error('no message to claim');
      const now = worker.clock.now();
      const { job, revision } = message;
      const check = revision && (await checkOf(worker.deps, job, revision, now));
      const claim = await worker.deps.jobStore.claimJob({
        job,
        attempt: message.attempt,
        owner: 'worker-vanished',
        now,
        leaseUntil: now + 30 * SECOND,
        ...(check && { reclaimCancelledFire: true, check }),
        ...(concurrencyLimit !== undefined && { concurrencyLimit }),
      });
      if (claim.status !== 'claimed') throw new Error(`not claimed: ${claim.status}`);
    },
    /** Takes the queued message of the fire at `T0 + seconds` out of the queue (a worker that gets to it late). */
    takeMessage(seconds: number): JobMessage {
      const index = worker.queue.sent.findIndex((message) => message.job.fireTime === T0 + seconds * SECOND);
      const [message] = index < 0 ? [] : worker.queue.sent.splice(index, 1);
      if (!message) throw new Error(`no message for the fire at +${seconds}s`);
      return message;
    },
  };
}

/** The check a worker makes before it claims a fire sent under `revision` (as `deliver` does). */
async function checkOf(
  deps: RuntimeDeps,
  job: JobRequest,
  revision: ScheduleRevision,
  now: number,
): Promise<NonNullable<ClaimJobInput['check']>> {
  const reads = await readFireSchedule(deps, job);
  if (!reads.schedule) reads.removed = await readRemoval(deps, job, { revision });
  const verdict = checkedVerdict(reads, job, { revision }, now);
  return { revision, failed: !verdict.run, startedAt: reads.at };
}
