import type { EpochMs } from '../clock';
import type { JobMessageBody } from '../model/job-message';
import { DEFAULT_PRIORITY, PRIORITIES } from '../model/priority';
import type { RateLimit } from '../model/rate-limit';
import { isOlderRevision, sameRevision } from '../model/schedule-revision';

/**
 * How long a woken job's message may take before its entry is taken for lost and its message sent again
 * (by any worker that touches the task, or the tick): well above a queue's travel and a worker's poll.
 */
export const WOKEN_RESEND_MS = 10_000;

/**
 * How long a woken job that its waker carries on in its own invocation may take to claim: it travels
 * nowhere, so it is overdue only when the waker died on the way (a crash between the hand-off and the
 * claim), and repaired as soon as a few store calls would have claimed it.
 */
export const CARRIED_RESEND_MS = 2_000;

/** When an entry woken at `now` is overdue: sooner when its waker carries it on (`CARRIED_RESEND_MS`). */
export function wokenOverdueAt(now: EpochMs, carriedOn = false): EpochMs {
  return now + (carriedOn ? CARRIED_RESEND_MS : WOKEN_RESEND_MS);
}

/** A call's booking of the wake-up for a rate-limited task's start at `at`, made at `now`. */
export interface RateWakeBooking {
  task: string;
  at: EpochMs;
  token: string;
  now: EpochMs;
}

/**
 * A wake-up booked before this is stale and can be booked over for its own start time: its woken job,
 * had there been one, would be overdue and sent again by now, so a booker that died between its
 * booking and its wake (nobody woken) holds up the line this long at most.
 */
export function rateWakeStaleBefore(now: EpochMs): EpochMs {
  return now - WOKEN_RESEND_MS;
}

/** When an entry is woken, and when it is overdue. */
export interface WakeTime {
  now: EpochMs;
  overdueAt: EpochMs;
}

export function wakeTime(now: EpochMs, carriedOn = false): WakeTime {
  return { now, overdueAt: wokenOverdueAt(now, carriedOn) };
}

/**
 * Where a waiting job stands in its task's line: priority first, then run time (the order jobs came
 * due), then id. A job that comes back to the line keeps its place, and two deliveries of one job
 * share one entry. The string sorts in line order (the DynamoDB store uses it in the sort key).
 */
export function linePosition(message: Pick<JobMessageBody, 'job'>): string {
  const rank = PRIORITIES.indexOf(message.job.priority ?? DEFAULT_PRIORITY);
  return `${rank}#${String(message.job.runAt).padStart(15, '0')}#${message.job.id}`;
}

/**
 * Whether a line entry whose message is of creation `entryToken` stands for the job of creation
 * `createToken` (either unknown: it does, as a claim takes it).
 */
export function sameCreation(entryToken: string | undefined, createToken: string | undefined): boolean {
  return entryToken === undefined || createToken === undefined || entryToken === createToken;
}

/**
 * Which copy of a job's message a line entry carries, or a delivery is: its attempt and, for a fire's
 * first attempt, the schedule revision it was sent under (a change sends its own copy of a fire it runs).
 */
export type MessageCopy = Pick<JobMessageBody, 'attempt' | 'revision'>;

/**
 * Which copy of a job its line entry keeps when another delivery joins: the higher attempt's, and at
 * the same attempt the newer schedule revision's (the older copy's check cancels in favour of it:
 * keeping the older would lose the fire). An equal one overwrites.
 */
export function lineKeeps(joining: MessageCopy, held: MessageCopy): 'joining' | 'held' {
  if (joining.attempt !== held.attempt) return joining.attempt > held.attempt ? 'joining' : 'held';
  const [a, b] = [joining.revision, held.revision];
  if (!a || !b) return 'joining';
  return isOlderRevision(a, b) ? 'held' : 'joining';
}

/** The copy a message is (its attempt and revision alone). */
export function copyOf({ attempt, revision }: MessageCopy): MessageCopy {
  return { attempt, ...(revision && { revision }) };
}

/**
 * Whether two copies are the same: a woken entry is its delivery's to claim or give back only while it
 * carries that delivery's copy. Copies without a revision to compare are told apart by attempt, as
 * `lineKeeps` does.
 */
export function sameCopy(a: MessageCopy, b: MessageCopy): boolean {
  if (a.attempt !== b.attempt) return false;
  if (!a.revision || !b.revision) return true;
  return sameRevision(a.revision, b.revision);
}

/** A job waiting for a slot of its task, with the message that runs it once woken. */
export interface LineEntry {
  task: string;
  /** `linePosition` of the message. */
  position: string;
  message: JobMessageBody;
  joinedAt: EpochMs;
}

/**
 * A job woken from its task's line (ADR 0009): its message is on its way. `withSlot`: it was handed a
 * slot of the task, which it holds until its claim takes it (or it is handed on): the task's counter
 * counts it as running.
 */
export interface WokenEntry extends LineEntry {
  wokenAt: EpochMs;
  /** From then on its message is taken for lost and sent again (`wokenOverdueAt`). */
  overdueAt: EpochMs;
  withSlot: boolean;
  /**
   * A later copy of a job woken already, moved into its woken entry in the older copy's place (a
   * retry, or a newer revision's copy of a fire): it took no slot or start now, but its message is its
   * waker's to send like the others'.
   */
  movedIn?: true;
}

/**
 * The slot a run's ending gives back, as its claim said: of `task` (the store goes straight to the
 * slot's way back, reading the job beside the task's counter), and whether the ender carries on in its
 * invocation the job the slot is handed to (its woken entry is then overdue sooner: `wokenOverdueAt`).
 */
export interface HeldSlot {
  task: string;
  carriedOn: boolean;
}

/**
 * What `wakeHeads` wakes the head of a line with: `slot`, a free slot of the task each (the counter
 * goes up; none while the task is paused or at `limit`, which stop the waking); `start`, nothing but a
 * rate-limited task's next start (which the claim takes); `none`, for a task without a slot limit
 * whose pause ended.
 */
export type WakeHeadsInput = { task: string; now: EpochMs; count: number } & (
  | { take: 'slot'; limit: number }
  | { take: 'start' | 'none' }
);

/**
 * A woken delivery that ends without running gives back its entry at `position`, while it carries the
 * `copy` the delivery was woken as (not one that carries a later attempt or a newer revision of its
 * job since: that one is not its to give); `carriedOn`: it carries on the job its slot is handed to,
 * as a run's ending may (`HeldSlot`).
 */
export interface WokenReleaseInput {
  task: string;
  position: string;
  copy: MessageCopy;
  now: EpochMs;
  carriedOn?: boolean;
}

/**
 * A woken delivery that its task's rate refused until `until` keeps its entry (and the slot it holds)
 * while it carries `copy`: its message comes back then, sent again at `now` with that delay.
 */
export interface WokenPostponement {
  task: string;
  position: string;
  copy: MessageCopy;
  now: EpochMs;
  until: EpochMs;
}

/** What became of a woken entry a delivery gave back (it ended without running). */
export type WokenRelease =
  /** Its slot went to the next waiting job, now woken: its message must be sent. */
  | { status: 'handed'; woken: WokenEntry }
  /** Its slot went back to the counter (nobody waits, or the task is paused). */
  | { status: 'released' }
  /** It held no slot, or was gone already (another delivery of the job took it). */
  | { status: 'gone' };

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
 * Per-task waiting lines (ADR 0003, ADR 0009): a job that finds no free slot joins its task's line and
 * lets its queue message go. A slot that comes back is handed to the line's head in the same step
 * (`JobStore.finishJob`, `retryJob`, `releaseWoken`), which becomes woken; its message is then sent and
 * its claim takes the slot it was handed. It goes back to the counter only while nobody joined the line
 * since the store read it, and a joiner reads the counter once it is in (`joinLine`): either the slot
 * found the joiner or the joiner finds the slot. The counter counts running jobs and woken entries with
 * a slot: it alone enforces the limit, and a slot is never free while a job waits. A woken entry whose
 * message was lost keeps its slot until someone sends the message again (`overdueWoken`).
 */
export interface WaitingLineStore {
  /**
   * Puts the job in its task's line at `linePosition(message)`. Joining again (a redelivery, or a woken
   * job that found no slot again) keeps one entry, with the higher attempt's message. Returns the task's
   * counter as it stands once the entry is in (a slot that came back meanwhile is free there), or
   * undefined when the task has none.
   */
  joinLine(input: { message: JobMessageBody; now: EpochMs }): Promise<TaskSlots | undefined>;

  /** The first job waiting in the task's line (not counting the woken ones), read consistently. */
  lineHead(task: string): Promise<LineEntry | undefined>;

  /**
   * Wakes up to `count` jobs from the head of the task's line, in order, each moved from waiting to
   * woken in one atomic step with what it takes (`take`). A head whose job is woken already leaves the
   * line on the way, and a later copy goes into the woken entry (`movedIn`, not counted). Returns the
   * woken entries, whose messages the caller sends.
   */
  wakeHeads(input: WakeHeadsInput): Promise<WokenEntry[]>;

  /**
   * A delivery of a woken job that ends without running gives its entry back: its slot is handed to the
   * line's head (woken in the same step) unless the task is paused or its limit was lowered under its
   * slots taken, else returned to the counter.
   */
  releaseWoken(input: WokenReleaseInput): Promise<WokenRelease>;

  /**
   * Keeps a woken entry for its delivery that waits for the rate's next start (`WokenPostponement`):
   * its `wokenAt` moves to `now` (a resend taken by someone who found it overdue before is refused) and
   * it is overdue only `WOKEN_RESEND_MS` after `until`. False when the entry is gone or carries another
   * copy: the wake-up is not the delivery's any more. Made again after a lost answer, it is told true.
   */
  postponeWoken(input: WokenPostponement): Promise<boolean>;

  /** The task's woken entries overdue at `now` (`overdueAt` reached): their messages may be lost. */
  overdueWoken(task: string, now: EpochMs): Promise<WokenEntry[]>;

  /**
   * Takes the resend of an overdue woken entry: moves its `wokenAt` to `now` (it is overdue again only
   * `WOKEN_RESEND_MS` later) only while it is still the `wokenAt` read, so of the workers and ticks that
   * found it overdue at once, one sends its message again. True for that one; false when the entry is
   * gone or someone else took its resend.
   */
  markWokenResent(entry: Pick<WokenEntry, 'task' | 'position' | 'wokenAt'>, now: EpochMs): Promise<boolean>;

  /**
   * Whether the job at `position` waits in the task's line or was woken from it, read consistently, as
   * the creation `createToken` (when given): the entry of an earlier creation of a job replaced since
   * does not count, since its wake-up's claim is refused (another creation) and would leave the job to nobody.
   */
  isWaiting(task: string, position: string, createToken?: string): Promise<boolean>;

  /** How many jobs wait in the task's line, woken ones included. */
  waitingCount(task: string): Promise<number>;

  /** The task's slot counter read consistently, or undefined when it has none. */
  taskSlots(task: string): Promise<TaskSlots | undefined>;

  /**
   * Books the one wake-up of a rate-limited task's line for the start time `at`: true for the first
   * caller for that time (or a later one), false when a wake-up for `at` or later is already booked,
   * however long ago `at` came, unless that booking is stale (`rateWakeStaleBefore`): its booker died
   * before it woke anyone. False when the task has no counter. `token` names this booking (one per
   * call): the same call made again after its answer was lost finds its own booking by it, and is
   * told true.
   */
  bookRateWake(booking: RateWakeBooking): Promise<boolean>;

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
