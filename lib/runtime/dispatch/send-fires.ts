import type { Clock, EpochMs } from '../../core/clock';
import { MAX_REST_MS } from '../../core/delivery/delivery';
import { LIMITS } from '../../core/limits';
import { planSendPhases } from '../../core/planning';
import type { JobMessage, JobQueue } from '../../core/ports/job-queue';
import type { JobStore } from '../../core/ports/job-store';

/** What sending a dispatch's fires takes: the queue, the store of the task logs, and time. */
export interface FireSending {
  queue: JobQueue;
  jobStore: Pick<JobStore, 'logFiresToSend'>;
  clock: Clock;
  sleep: (ms: number) => Promise<void>;
  /**
   * Until this instant (0: never) fires are sent at their sub-second phases, each delivered at most
   * `toleranceMs` before its run time; after it (a dispatch with a long backlog) at once.
   */
  phasesUntil: EpochMs;
  toleranceMs: number;
  /** How long this process's recent sends took: phased sends go out that much earlier. */
  sendTimes: SendTimes;
}

/**
 * The latest a message is delivered before its run time: room for the send request itself and a timer
 * that wakes a few ms late (a message delivered after its run time would start late).
 */
const LEAD_MS = 10;

/** Sends whose time `SendTimes` keeps. */
const SEND_TIMES_KEPT = 16;

/**
 * How long a process's recent sends took (ms). A message's whole-second delay starts when the queue
 * has it, so a send that takes 200 ms (a busy queue, a busy process) would deliver its fires 200 ms
 * late: phased sends start the longest of the recent sends earlier, and the worker waits that out.
 */
export class SendTimes {
  private readonly recent: number[] = [];

  record(ms: number): void {
    this.recent.push(Math.max(0, ms));
    if (this.recent.length > SEND_TIMES_KEPT) this.recent.shift();
  }

  /** The longest of the last sends (0 before the first). */
  longestMs(): number {
    return Math.max(0, ...this.recent);
  }
}

/**
 * A send waits up to a second for its phases, and the dispatch's next page waits with it. When this
 * page's latest schedule fires sooner than this, the next page's first fires may be due in a moment: the
 * page is sent at once instead.
 */
const MIN_AHEAD_FOR_PHASES_MS = 5_000;

/**
 * Notes a dispatch's fires in their tasks' fire logs (one write per task and minute, so a task's
 * listing finds their jobs without an index entry per job: ADR 0001), then sends them at their phases.
 * The two effects, in that order: when the note fails nothing is sent (a sent fire is always in its
 * task's log), and every message is reported as not sent. Resolves with the ids of the jobs not sent.
 */
export async function noteAndSendFires(
  sending: FireSending,
  messages: readonly JobMessage[],
): Promise<Set<string>> {
  if (messages.length === 0) return new Set();
  let logged: ReadonlySet<string>;
  try {
    logged = await sending.jobStore.logFiresToSend(
      messages.filter(isFirstFire).map((message) => message.job),
      sending.clock.now(),
    );
  } catch {
    return new Set(messages.map((message) => message.job.id));
  }
  const marked = messages.map((message) =>
    isFirstFire(message) && logged.has(message.job.id) ? { ...message, taskLogged: true as const } : message,
  );
  return sendAtPhases(sending, marked);
}

/**
 * Sends each message at the sub-second phase where its whole-second delay ends just before its run
 * time (`planSendPhases`), so the worker waits tens of ms for it instead of up to a second: this waits
 * (up to a second) between the phases. Messages of one phase go together (batches stay full); one
 * already due goes at once, and so does a page whose schedules fire within 5 s, or any page after
 * `phasesUntil` (the worker then waits out the sub-second rest). Resolves with the ids not sent.
 */
export async function sendAtPhases(
  sending: FireSending,
  messages: readonly JobMessage[],
): Promise<Set<string>> {
  const { clock, sleep, toleranceMs } = sending;
  const now = clock.now();
  const soon = latestFirstRunAt(messages) - now < MIN_AHEAD_FOR_PHASES_MS;
  if (toleranceMs <= 0 || now >= sending.phasesUntil || soon) return sendNow(sending.queue, messages);
  // Earlier by what sends take, within the second a worker waits for an early message.
  const sendMs = Math.min(sending.sendTimes.longestMs(), Math.max(0, MAX_REST_MS - toleranceMs));
  const options = {
    toleranceMs: toleranceMs + sendMs,
    leadMs: Math.min(LEAD_MS, Math.floor(toleranceMs / 2)) + sendMs,
    maxDelaySeconds: LIMITS.maxQueueDelaySeconds,
  };
  const groups = planSendPhases(messages, (message) => message.job.runAt, now, options);
  // Each group's send starts at its phase without waiting for the sends before it.
  const sends: Promise<Set<string>>[] = [];
  for (const group of groups) {
    const wait = group.sendAt - clock.now();
    if (wait > 0) await sleep(wait);
    sends.push(
      timedSend(
        sending,
        group.items.map(({ item, delaySeconds }) => ({ ...item, delaySeconds })),
      ),
    );
  }
  const failed = new Set<string>();
  for (const ids of await Promise.all(sends)) for (const id of ids) failed.add(id);
  return failed;
}

/** `sendNow`, its time kept in `sendTimes`. */
async function timedSend(sending: FireSending, messages: readonly JobMessage[]): Promise<Set<string>> {
  const startedAt = sending.clock.now();
  const failed = await sendNow(sending.queue, messages);
  sending.sendTimes.record(sending.clock.now() - startedAt);
  return failed;
}

/** Sends at once; resolves with the ids not sent (a queue that throws sent nothing one can count on). */
export async function sendNow(queue: JobQueue, messages: readonly JobMessage[]): Promise<Set<string>> {
  if (messages.length === 0) return new Set();
  try {
    return new Set((await queue.send(messages)).failed);
  } catch {
    return new Set(messages.map((message) => message.job.id));
  }
}

/** A fire's first delivery: what a dispatch sends, and what a task's log lists. */
function isFirstFire(message: JobMessage): boolean {
  return message.attempt === 1 && message.job.origin === 'schedule';
}

/** The latest of the messages' schedules' first run times (the next page's fires come no earlier). */
function latestFirstRunAt(messages: readonly JobMessage[]): number {
  const firstRunAt = new Map<string, number>();
  for (const { job } of messages) {
    const key = job.scheduleId ?? job.id;
    firstRunAt.set(key, Math.min(firstRunAt.get(key) ?? job.runAt, job.runAt));
  }
  return Math.max(Number.NEGATIVE_INFINITY, ...firstRunAt.values());
}
