import type { EpochMs } from '../clock';
import type { Job, JobError, ResultOutcome } from '../model/job';
import { jobStateOf } from '../model/job-states';
import type { RateLimit } from '../model/rate-limit';
import type { ScheduleRevision } from '../model/schedule-revision';
import type { ClaimOutcome, JobRequest } from '../ports/job-store';
import type { MessageCopy } from '../ports/waiting-line';
import type { FireReads } from './fire-verdict';

/** What a schedule fire's checked delivery carries besides its job (see `JobMessageBody`). */
export interface FireMarks {
  /** The schedule's revision the fire was sent (or its run claimed) under. */
  revision: ScheduleRevision;
  /** Noted in its task's fire log before it was sent. */
  taskLogged: boolean;
}

/** What the worker knows of the job's task: its definition with the job's overrides. */
export interface TaskTerms {
  maxRunningJobs: number | null;
  rateLimit: RateLimit | null;
  maxAttempts: number;
}

/** How a job that will not run ends (unknown task, no attempt left, start deadline missed). */
export interface UnrunEnding {
  outcome: Exclude<ResultOutcome, 'success'>;
  error?: JobError;
}

/**
 * One delivery of a job message, and everything the worker has learnt about it so far (ADR 0009). It
 * starts from the message (`arrivedDelivery`); each step the worker performs adds one fact, and
 * `nextStep` decides from the facts alone. A takeover or a reclaim is a fact too: the delivery then
 * goes on as the attempt it takes.
 */
export interface Delivery {
  job: JobRequest;
  attempt: number;
  /**
   * A schedule fire's checked delivery (its first, a copy of one, or a takeover of a run whose check
   * failed): it reads the schedule before it claims, and its claim stores the check's outcome.
   */
  fire?: FireMarks;
  /** What it read of the fire's schedule, once before its first claim. */
  reads?: FireReads;
  /**
   * Woken from its task's line as this copy of its message (as its entry carries it): it holds the
   * woken entry (and the slot it was handed) until it claims or gives it back, also once a reclaim
   * goes on as a later attempt.
   */
  woken?: MessageCopy;
  /** The task as registered (undefined: this worker does not know it). */
  task: TaskTerms | undefined;
  /** The sub-second rest before the run time was waited out. */
  rested: boolean;
  /** For a task without a slot limit: whether it is paused, as this warm worker last read it. */
  pausedTask?: boolean;
  /** The last claim's answer, and the claim as made (when, by whom, under which lease). */
  claim?: { outcome: ClaimOutcome } & ClaimMade;
  /** The claim of a job ended without running did not claim it: another delivery has it, or it was cancelled. */
  unrunClaim?: Exclude<ClaimOutcome, { status: 'claimed' | 'no_slot' }>;
  /** A job ended without running was recorded. */
  endedUnrun?: boolean;
  /** How many times this delivery took its own turn after joining the line. */
  ownTurns: number;
  /** How many times this woken delivery rested for its rate's next start and claimed again. */
  startRests: number;
  /** The line was joined: whether this delivery's own turn came while it joined. */
  joined?: { ownTurn: boolean };
  /** The claimed job ran (`nextRunStep`): whether its message must come back. */
  ran?: { keepMessage: boolean };
}

/** A message that arrives this much (or less) before its run time waits in the worker; earlier ones go back to the queue. */
export const MAX_REST_MS = 1_000;
/** How many times in a row a job that joined its line with a slot free claims again at once. */
export const MAX_OWN_TURNS = 3;
/**
 * How many times in a row a woken job refused by its rate rests for the next start and claims again;
 * each refusal is another job's start. Then its message comes back for the start (`wait_for_start`).
 */
export const MAX_START_RESTS = 3;

/** Why a delivery lets its message go. */
export type DropReason = 'duplicate' | 'cancelled' | 'ended_unrun' | 'waits_in_line' | 'ran';

/**
 * What the worker does next with a delivery: one part of the worker performs each step and adds its
 * fact (`deliver.ts`); `run` hands the claimed job to the run's own machine (`nextRunStep`).
 */
export type Step =
  /** Too early for the queue's delay to have brought it: sent again with this delay; this copy goes. */
  | { kind: 'resend'; delaySeconds: number }
  /**
   * Waits in the queue for another delivery's next step (`REAPED_RUN_WAIT_SECONDS`): sent again with this
   * delay, so that its receive count starts anew; this copy goes.
   */
  | { kind: 'send_later'; delaySeconds: number }
  /** Waits until `until` (the run time's sub-second rest). */
  | { kind: 'rest'; until: EpochMs }
  /** Reads whether the task (without a slot limit) is paused. */
  | { kind: 'read_paused' }
  /** Reads the fire's schedule, to check the fire before the claim. */
  | { kind: 'read_schedule' }
  /** Reads the finished schedule's removal record: the schedule was gone (ADR 0004). */
  | { kind: 'read_removal' }
  /** Claims the job for this attempt (taking its woken entry's slot, a free slot or a start when limited). */
  | { kind: 'claim' }
  /** Records a result without running: the job is claimed without a slot and ended. */
  | { kind: 'end_unrun'; ending: UnrunEnding }
  /** The delivery does not run: its woken entry (and slot) goes to the next job in line, or back. */
  | { kind: 'pass_wake' }
  /** Joins the task's line. `mayTakeTurn`: it claims again at once if a slot came free while it joined. */
  | { kind: 'join_line'; mayTakeTurn: boolean }
  /** A woken job refused by its rate alone, its next start within `MAX_REST_MS`: waits for it and claims again. */
  | { kind: 'rest_for_start'; until: EpochMs }
  /**
   * A woken job holding a slot refused by its rate alone, its next start further off: keeps its woken
   * entry (and the slot) for that start and sends its message again to come back then; this copy goes.
   */
  | { kind: 'wait_for_start'; at: EpochMs }
  /** Its turn came while it joined: it claims again, as a fresh arrival. */
  | { kind: 'take_turn' }
  /** Runs the claimed job (see `nextRunStep`). */
  | { kind: 'run' }
  /** Continues the stored run, whose worker vanished, as its next attempt. */
  | { kind: 'take_over'; run: Job }
  /** Keeps the message: hidden for `afterSeconds` (undefined: a growing, jittered while), then redelivered. */
  | { kind: 'come_back'; afterSeconds?: number }
  /** Nothing more to do: the message goes. */
  | { kind: 'drop'; why: DropReason }
  /** The message comes back as the queue's visibility timeout has it (its step failed, or a send it stands for did). */
  | { kind: 'keep' };

/** A delivery as its message arrives. */
export function arrivedDelivery(
  message: {
    job: JobRequest;
    attempt: number;
    fire?: FireMarks;
    woken?: MessageCopy;
  },
  task: TaskTerms | undefined,
): Delivery {
  return { ...message, task, rested: false, ownTurns: 0, startRests: 0 };
}

/**
 * The next step of a delivery, from what is known of it. Before the claim: too early, a rest, an
 * unknown task, attempts used up, a missed start deadline, a paused task, a fire's schedule to read for
 * its check (once per delivery: a claim made again goes on with that read), else the claim. After it,
 * from the claim's answer and the stored job's state (`JOB_TRANSITIONS`): run, wait for the rate, join
 * the line, take over a stalled run, come back while another attempt runs, or drop a duplicate. A woken
 * delivery that does not run passes its wake-up on first.
 */
export function nextStep(delivery: Delivery, now: EpochMs): Step {
  const step = decide(delivery, now);
  if (delivery.woken && PASSES_WAKE_ON.has(step.kind)) return { kind: 'pass_wake' };
  return step;
}

/** The steps by which a delivery lets its job go without claiming it: a wake-up it holds goes first. */
const PASSES_WAKE_ON: ReadonlySet<Step['kind']> = new Set([
  'drop',
  'come_back',
  'send_later',
  'take_over',
  'join_line',
]);

/** The delivery once its wake-up was passed on. */
export function wakePassed(delivery: Delivery): Delivery {
  return { ...delivery, woken: undefined };
}

function decide(delivery: Delivery, now: EpochMs): Step {
  const { job, attempt, task, claim } = delivery;
  if (delivery.ran) return delivery.ran.keepMessage ? { kind: 'keep' } : { kind: 'drop', why: 'ran' };
  if (delivery.endedUnrun) return { kind: 'drop', why: 'ended_unrun' };
  if (delivery.unrunClaim) return afterRefusedClaim(delivery, delivery.unrunClaim, now);
  if (delivery.joined) {
    return delivery.joined.ownTurn ? { kind: 'take_turn' } : { kind: 'drop', why: 'waits_in_line' };
  }
  if (!claim) {
    const early = job.runAt - now;
    if (early > MAX_REST_MS) return { kind: 'resend', delaySeconds: Math.floor(early / 1000) };
    if (!delivery.rested && early > 0) return { kind: 'rest', until: job.runAt };
    if (!task) return { kind: 'end_unrun', ending: unknownTask(job) };
    if (attempt - (job.attemptBase ?? 0) > task.maxAttempts) {
      return { kind: 'end_unrun', ending: attemptsUsedUp(attempt, task.maxAttempts) };
    }
    if (job.startDeadline !== null && now > job.startDeadline) {
      return { kind: 'end_unrun', ending: { outcome: 'missed_start_deadline' } };
    }
    if (!isLimited(task) && delivery.pausedTask === undefined) return { kind: 'read_paused' };
    if (delivery.pausedTask) return { kind: 'join_line', mayTakeTurn: false };
    if (delivery.fire && !delivery.reads) return { kind: 'read_schedule' };
    if (delivery.fire && !delivery.reads?.schedule && !delivery.reads?.removed)
      return { kind: 'read_removal' };
    return { kind: 'claim' };
  }
  const { outcome } = claim;
  if (outcome.status === 'claimed') return { kind: 'run' };
  if (outcome.status === 'no_slot') {
    return (
      startToWaitFor(delivery, outcome, now) ?? {
        kind: 'join_line',
        mayTakeTurn: delivery.ownTurns < MAX_OWN_TURNS,
      }
    );
  }
  return afterRefusedClaim(delivery, outcome, now);
}

/**
 * A woken delivery that only its task's rate refused (the store says when the next start may come)
 * waits for that start when it is within `MAX_REST_MS` (SQS delays in whole seconds, so a job woken for
 * a start arrives up to a second before it), and claims again. Further off, one that holds a slot keeps
 * its wake-up and comes back for the start (`wait_for_start`): passed on, its slot would wake the next
 * job in line at once, which the rate refuses as well, and so on until the start came, a round of store
 * calls and messages per job in line. One woken for a start alone that another job took passes its
 * wake-up on, which books the next start and wakes one job for it: kept, every start a fresh arrival
 * took would leave one more woken job behind, all of them claiming at every start. A start further
 * off than the queue can delay a message is waited for in hops of the longest delay (passed on, the
 * slot would go round the line until the start came). None waits past its start deadline.
 */
function startToWaitFor(
  delivery: Delivery,
  outcome: Extract<ClaimOutcome, { status: 'no_slot' }>,
  now: EpochMs,
): Step | undefined {
  const { nextStartAt } = outcome;
  if (!delivery.woken || nextStartAt === undefined) return undefined;
  const { startDeadline } = delivery.job;
  if (startDeadline !== null && nextStartAt > startDeadline) return undefined;
  if (nextStartAt - now <= MAX_REST_MS && delivery.startRests < MAX_START_RESTS) {
    return { kind: 'rest_for_start', until: nextStartAt };
  }
  return outcome.wokenSlot ? { kind: 'wait_for_start', at: nextStartAt } : undefined;
}

/** The delivery once it rested for its rate's next start: it claims again. */
export function restedForStart(delivery: Delivery): Delivery {
  return { ...delivery, claim: undefined, startRests: delivery.startRests + 1 };
}

/**
 * The claim was refused because of the job's state. A fire cancelled by its check at a later attempt
 * (a takeover's) may be claimed again as that attempt. Otherwise another delivery has the job: a
 * running earlier attempt (the message for attempt n+1 can come before attempt n is marked
 * `retrying`) comes back later; a run without a slot is not reaped by the tick, so its message is the
 * way back if its worker vanished: it comes back when the run's lease ends and then takes the run over
 * as the next attempt (a slot holder's stalled run is the reaper's). A fire's copy comes back when a
 * slot holder's run ends too: that run may be an older copy whose check is about to cancel it (a
 * pause, and this copy the replay's), and the fire is then this copy's to claim again. It waits (sent
 * again a minute later) while a stalled slot holder whose check failed waits for the reaper, and while
 * the reaper's next attempt is on its way to check it (ADR 0002). Anything else is a duplicate.
 */
function afterRefusedClaim(
  delivery: Delivery,
  outcome: Exclude<ClaimOutcome, { status: 'claimed' | 'no_slot' }>,
  now: EpochMs,
): Step {
  if (outcome.status === 'cancelled') {
    return outcome.reclaimAsAttempt !== undefined ? { kind: 'claim' } : { kind: 'drop', why: 'cancelled' };
  }
  const stored = outcome.job;
  const state = jobStateOf(stored, now);
  // The reaper handed a slot holder whose check failed to a next attempt, which checks it again
  if (state === 'retrying' && stored?.checkFailed && delivery.fire) return waitForReapedRun();
  if (!stored || (state !== 'running' && state !== 'stalled')) return { kind: 'drop', why: 'duplicate' };
  if (stored.attempt < delivery.attempt) return { kind: 'come_back' };
  if (stored.leaseUntil === null || (stored.holdsSlot && !delivery.fire)) {
    return { kind: 'drop', why: 'duplicate' };
  }
  if (state === 'running') {
    return { kind: 'come_back', afterSeconds: Math.ceil((stored.leaseUntil - now) / 1000) + 1 };
  }
  if (stored.holdsSlot) return stored.checkFailed ? waitForReapedRun() : { kind: 'drop', why: 'duplicate' };
  return { kind: 'take_over', run: stored };
}

/**
 * How long a fire's copy waits for a slot holder whose check failed: the tick's reaper hands its stalled
 * run to a next attempt within a minute, and that attempt's check cancels the fire soon after. The copy
 * waits as a new message: coming back on its receive count, it could be dead-lettered before then.
 */
export const REAPED_RUN_WAIT_SECONDS = 60;

function waitForReapedRun(): Step {
  return { kind: 'send_later', delaySeconds: REAPED_RUN_WAIT_SECONDS };
}

/** A claim as the worker made it. */
export interface ClaimMade {
  at: EpochMs;
  owner: string;
  leaseUntil: EpochMs;
}

/**
 * The delivery after its claim answered `outcome` (a reclaim goes on as the attempt it may take). A
 * claim that took the job took its woken entry too, if it was still there: no wake-up is left to pass on.
 */
export function withClaim(delivery: Delivery, outcome: ClaimOutcome, made: ClaimMade): Delivery {
  if (outcome.status === 'cancelled' && outcome.reclaimAsAttempt !== undefined) {
    return { ...delivery, attempt: outcome.reclaimAsAttempt, claim: undefined };
  }
  return {
    ...delivery,
    claim: { outcome, ...made },
    ...(outcome.status === 'claimed' && { woken: undefined }),
  };
}

/** The delivery taking its own turn after joining: a fresh arrival, its rest and pause already known. */
export function takingTurn(delivery: Delivery): Delivery {
  return {
    ...delivery,
    claim: undefined,
    joined: undefined,
    ownTurns: delivery.ownTurns + 1,
  };
}

function isLimited(task: TaskTerms): boolean {
  return task.maxRunningJobs !== null || task.rateLimit !== null;
}

function unknownTask(job: JobRequest): UnrunEnding {
  return {
    outcome: 'error',
    error: { type: 'UnknownTaskError', message: `task '${job.task}' is not registered in this worker` },
  };
}

function attemptsUsedUp(attempt: number, maxAttempts: number): UnrunEnding {
  return {
    outcome: 'abandoned',
    error: {
      type: 'JobAbandonedError',
      message: `attempt ${attempt - 1} stopped answering (its lease expired) and retry.maxAttempts (${maxAttempts}) allows no further attempt`,
    },
  };
}
