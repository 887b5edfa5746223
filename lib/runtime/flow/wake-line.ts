import type { Clock } from '../../core/clock';
import type { JobQueue } from '../../core/ports/job-queue';
import type { JobStore } from '../../core/ports/job-store';
import { type LeaseLineHeadInput, type TaskSlots, WAKE_LEASE_MS } from '../../core/ports/waiting-line';
import type { Logger } from '../observability/logger';
import { type WakeOptions, wakeForNextStart } from './rate-wake';

export interface WakeDeps {
  jobStore: JobStore;
  queue: JobQueue;
  clock: Clock;
  logger: Pick<Logger, 'warn'>;
  newId: () => string;
}

/** How many jobs of a task without `maxRunningJobs` one call wakes (its line exists only from a pause). */
const UNLIMITED_WAKE_BATCH = 500;

/**
 * Wakes jobs at the head of a task's waiting line: holds their entries, sends their messages again with
 * no delay, then takes them out of the line. Sending before leaving means a crash in between loses no
 * job: the entry's hold ends and the tick's fallback wakes it again (a duplicate message is dropped at
 * claim, or finds no slot and joins the line again at the same place). Returns how many were sent
 * (with `delaySeconds`, for a rate-limited task's next start).
 */
export async function wakeWaitingJobs(
  deps: WakeDeps,
  task: string,
  count: number,
  leased: LeaseLineHeadInput['leased'],
  delaySeconds = 0,
): Promise<number> {
  if (count <= 0) return 0;
  const owner = `wake-${deps.newId()}`;
  const now = deps.clock.now();
  const entries = await deps.jobStore.leaseLineHead({
    task,
    owner,
    now,
    leaseMs: WAKE_LEASE_MS,
    count,
    leased,
  });
  if (entries.length === 0) return 0;
  const { failed } = await deps.queue.send(
    entries.map((entry) => ({ ...entry.message, delaySeconds, wokenBy: owner })),
  );
  const failedIds = new Set(failed);
  const sent = entries.filter((entry) => !failedIds.has(entry.message.job.id));
  if (failedIds.size > 0) {
    deps.logger.warn('could not wake waiting jobs; the tick wakes them once their hold ends', {
      task,
      failed: failedIds.size,
    });
  }
  await Promise.all(
    sent.map((entry) =>
      deps.jobStore.leaveLine(task, entry.position, owner).catch((error: unknown) => {
        // Woken but still in the line: woken again later and dropped at claim, or it waits again.
        deps.logger.warn('woken job not taken out of its line', { jobId: entry.message.job.id, error });
      }),
    ),
  );
  return sent.length;
}

/** A slot was given back: the next job of the line that nobody is waking yet is woken. */
export function wakeNextWaitingJob(deps: WakeDeps, task: string): Promise<number> {
  return wakeWaitingJobs(deps, task, 1, 'skip');
}

/** The slots of the task that are free and nobody is waking a job for (none while paused). */
function freeSlots(slots: TaskSlots): number {
  if (slots.paused) return 0;
  if (slots.limit === null) return UNLIMITED_WAKE_BATCH;
  return Math.max(0, slots.limit - slots.running);
}

/**
 * Wakes as many waiting jobs as the task has free slots, counting those already being woken: how a
 * job that just joined the line closes the race with a slot given back before it joined, and how the
 * tick makes up for a lost wake-up.
 */
export function wakeForFreeSlots(
  deps: WakeDeps,
  slots: TaskSlots,
  options: WakeOptions = {},
): Promise<number> {
  // A rate-limited task starts one job per interval: its line is woken for its next start time.
  if (slots.rateLimit) return wakeForNextStart(deps, slots, options);
  return wakeWaitingJobs(deps, slots.task, freeSlots(slots), 'count');
}

/**
 * For a job that has just joined its task's line and found a slot free: takes its own entry out of the
 * line (no hold: a crash right after costs no stall) when it is among the first free slots' worth of
 * entries (those held by a waker count as woken, the others as taking their own turn), and says so:
 * the caller, whose message stays in the queue until it is done, claims the job at once instead of
 * waking it through the queue. It wakes nobody else: the job that gave the slot back woke the head of
 * the line, and a joiner that woke others too set off a storm of wake-ups for one slot that let normal
 * jobs pass a critical one (ADR 0003). A rate-limited task's line is woken for its next start instead.
 */
export async function takeOwnTurn(deps: WakeDeps, slots: TaskSlots, ownPosition: string): Promise<boolean> {
  if (slots.rateLimit) {
    await wakeForNextStart(deps, slots);
    return false;
  }
  const count = freeSlots(slots);
  if (count <= 0) return false;
  const owner = `turn-${deps.newId()}`;
  const [own] = await deps.jobStore.leaseLineHead({
    task: slots.task,
    owner,
    now: deps.clock.now(),
    leaseMs: WAKE_LEASE_MS,
    count,
    leased: 'count',
    only: ownPosition,
  });
  return own !== undefined;
}
