import type { EpochMs } from '../clock';
import type { JobMessageBody } from '../model/job-message';
import { DEFAULT_PRIORITY, PRIORITIES } from '../model/priority';
import type { RateLimit } from '../model/rate-limit';

/** How long a waker holds the entries it takes from a line while it re-sends their messages. */
export const WAKE_LEASE_MS = 10_000;

/**
 * Where a waiting job stands in its task's line: priority first, then run time (the order jobs came
 * due), then id. A job that comes back to the line keeps its place, and two deliveries of one job
 * share one entry. The string sorts in line order (the DynamoDB store uses it in the sort key).
 */
export function linePosition(message: Pick<JobMessageBody, 'job'>): string {
  const rank = PRIORITIES.indexOf(message.job.priority ?? DEFAULT_PRIORITY);
  return `${rank}#${String(message.job.runAt).padStart(15, '0')}#${message.job.id}`;
}

/** A job waiting for a slot of its task, with the message that runs it once woken. */
export interface LineEntry {
  task: string;
  /** `linePosition` of the message. */
  position: string;
  message: JobMessageBody;
  joinedAt: EpochMs;
}

export interface LeaseLineHeadInput {
  task: string;
  owner: string;
  now: EpochMs;
  leaseMs: number;
  /** How many entries to wake. */
  count: number;
  /**
   * `skip`: entries another waker holds are passed over (a worker giving back its slot wakes the next
   * free one). `count`: they count as woken (the tick's fallback tops a line up to its free slots).
   */
  leased: 'skip' | 'count';
  /**
   * Takes only the entry at this position, if it is among the first `count` (the others are passed
   * over but counted, as their own jobs take their turn), and takes it out of the line rather than
   * holding it (a conditional delete, only while no waker holds it): how a job that has just joined
   * the line takes its own turn without waking anyone else, and without a hold that a crash would
   * leave behind to stall the line.
   */
  only?: string;
}

/** A task's slot counter as it stands: slots taken, the limit it was taken under, whether paused. */
export interface TaskSlots {
  task: string;
  running: number;
  /** The task's `maxRunningJobs` as of the last slot taken; null when no limited job ran yet. */
  limit: number | null;
  paused: boolean;
  /** The task's `rateLimit` as of the last start; absent when no rate-limited job started yet. */
  rateLimit?: RateLimit;
  /** The earliest time the next job of a rate-limited task may start; absent before its first start. */
  nextStartAt?: EpochMs;
}

/**
 * Per-task waiting lines: a job that finds no free slot joins its task's line and lets its queue
 * message go; whoever gives a slot back wakes the head of the line (its message is sent again). The
 * slot counter alone enforces the limit: the line only decides who tries next, so a lost wake-up
 * delays a job (until the tick's fallback) and a duplicate one costs a claim that finds no slot.
 */
export interface WaitingLineStore {
  /**
   * Puts the job in its task's line at `linePosition(message)`. Joining again (a redelivery, or a woken
   * job that found no slot again) keeps one entry, with the higher attempt's message, and ends any
   * waker's hold on it.
   */
  joinLine(input: { message: JobMessageBody; now: EpochMs }): Promise<void>;

  /**
   * Holds up to `count` entries from the head of the task's line for `owner` until `now + leaseMs`
   * (entries held by a waker whose hold ended are free again), in line order.
   */
  leaseLineHead(input: LeaseLineHeadInput): Promise<LineEntry[]>;

  /**
   * Takes a woken entry out of the line once its message was sent again; only while `owner` holds it
   * (an entry that joined again meanwhile stays).
   */
  leaveLine(task: string, position: string, owner: string): Promise<void>;

  /** How many jobs wait in the task's line. */
  waitingCount(task: string): Promise<number>;

  /** Whether an entry waits at `position` of the task's line (held by a waker or not), read consistently. */
  isWaiting(task: string, position: string): Promise<boolean>;

  /** The task's slot counter read consistently, or undefined when it has none. */
  taskSlots(task: string): Promise<TaskSlots | undefined>;

  /**
   * Books the one wake-up of a rate-limited task's line for the start time `at`: true for the first
   * caller for that time (or a later one), false when a wake-up for `at` or later is already booked.
   * False when the task has no counter.
   */
  bookRateWake(task: string, at: EpochMs): Promise<boolean>;

  /**
   * Takes a start of a rate-limited task again, for a claimed job whose handler could not start on
   * time (its process stalled past the slack the start interval leaves): moves the next start time one
   * interval past `now`, only once it has come and while the task is not paused. Refused: when the next
   * start may come (absent while paused).
   */
  retakeRateStart(
    task: string,
    rate: RateLimit,
    now: EpochMs,
  ): Promise<{ taken: true } | { taken: false; nextStartAt?: EpochMs }>;

  /** Gives back a booking for `at` that found nobody to wake (a later booking stays). */
  releaseRateWake(task: string, at: EpochMs): Promise<void>;

  /** Every task's slot counter. */
  allTaskSlots(): Promise<TaskSlots[]>;

  /**
   * Pauses or resumes a task: while paused, no slot of it is taken (`claimJob` with a concurrency limit
   * answers `no_slot`), so its jobs wait in its line. Creates the counter when the task has none.
   */
  setTaskPaused(task: string, paused: boolean): Promise<TaskSlots>;
}
