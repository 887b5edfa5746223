import type { JobMessage, JobQueue } from '../../lib/core/ports/job-queue';
import type { ClaimOutcome, JobStore, RunEnd } from '../../lib/core/ports/job-store';
import type { WakeHeadsInput, WokenEntry, WokenRelease } from '../../lib/core/ports/waiting-line';

/** What a caller's label ends with once its invocation died (calls still in flight may answer then). */
export const DEAD = ' (dead)';

/** One store or queue call about a job: when, by whom, what was asked and what came back. */
interface TraceEntry {
  at: number;
  who: string;
  what: string;
}

const TRACED_CALLS = new Set([
  'claimJob',
  'finishJob',
  'retryJob',
  'cancelJob',
  'parkUnclaimedJob',
  'markJobSent',
  'joinLine',
]);

/**
 * The calls that wake jobs of a line, give a woken job's slot back (ADR 0009) or correct a task's
 * counter, traced per line.
 */
const LINE_CALLS = new Set([
  'wakeHeads',
  'releaseWoken',
  'overdueWoken',
  'markWokenResent',
  'repairCounters',
]);

/** Something done to a task's line: a wake, a hand-off, a woken entry given back, a resend. */
export interface LineEvent {
  at: number;
  who: string;
  task: string;
  what: string;
}

/**
 * What the platform did with each job during the soak, for the report of a violation: every claim,
 * ending and cancellation (with its outcome), every wake-up and hand-off of a slot, and every message
 * sent for it (attempt and revision). Kept per job id; a few entries per fire.
 */
export class JobTrace {
  private readonly entries = new Map<string, TraceEntry[]>();
  /** When each job joined its task's waiting line (every time it did), by job id. */
  readonly joins = new Map<string, number[]>();
  /**
   * When each job was woken holding a slot (by `wakeHeads`, or handed the slot of a run's ending or of a
   * woken job given back), by job id: it holds that slot until its claim takes it or it gives it back.
   */
  readonly wokenWithSlot = new Map<string, number[]>();
  /** When a woken job's slot stopped being its own: its claim succeeded, or its entry was given back. */
  readonly wokenEnds = new Map<string, number[]>();
  /** When a run of each job wrote its result or its retry (which hands its slot on or gives it back), by job id. */
  readonly runEnds = new Map<string, number[]>();
  /** When a message of each job was sent (sends that did not fail), by job id. */
  readonly sends = new Map<string, number[]>();
  /**
   * When a resend of each woken job was taken (`markWokenResent`) and its message then never went: the
   * taker's send failed, or its invocation died first (`callerDied`).
   */
  readonly lostResends = new Map<string, number[]>();
  /** Resends taken whose message is not sent yet: by job id, when and by whom. */
  private readonly takenResends = new Map<string, { at: number; who: string }>();
  /** How many woken jobs' messages were found overdue (`overdueWoken`) and sent again. */
  resentWoken = 0;
  /** Lists a task's woken entries and how many wait, for a wake that found free slots and woke nobody. */
  probeLine: ((task: string) => Promise<string>) | undefined;
  /** Every wake, hand-off, release and resend of a line, in time order. */
  readonly lineEvents: LineEvent[] = [];
  /** Successful claims per job id: attempt and the `started_at` the claim wrote. */
  private readonly claims = new Map<string, { attempt: number; at: number }[]>();

  /**
   * When the run that a handler started as `attempt` at `startedAt` was claimed, as the platform counts
   * a fire's start: the `started_at` its claim wrote (the worker's clock as it began the fire check's
   * read of the schedule, before the claim, ADR 0002: docs/admin-api.md promises no job with a
   * `started_at` after a pause or removal returned, and a slow read or claim can answer after the call
   * returned though it began before). A takeover
   * (attempt n + 1 of a run whose worker vanished) continues the run of attempt n, claimed earlier.
   * Undefined when no such claim was seen.
   */
  claimOfRun(jobId: string, attempt: number, startedAt: number): number | undefined {
    const before = (this.claims.get(jobId) ?? []).filter((claim) => claim.at <= startedAt);
    const own = before.findLast((claim) => claim.attempt === attempt);
    if (attempt === 1 || own === undefined) return own?.at;
    return before.findLast((claim) => claim.attempt === attempt - 1)?.at ?? own.at;
  }

  /** The `started_at` of the latest successful claim of `jobId` at or before `at` (undefined: none seen). */
  claimedBefore(jobId: string, at: number): number | undefined {
    return (this.claims.get(jobId) ?? []).findLast((claim) => claim.at <= at)?.at;
  }

  add(jobId: string, who: string, what: string): void {
    const list = this.entries.get(jobId) ?? [];
    list.push({ at: Date.now(), who, what });
    this.entries.set(jobId, list);
  }

  /** When the first entry of `jobId` was made (0 when none). */
  firstAt(jobId: string): number {
    return this.entries.get(jobId)?.[0]?.at ?? 0;
  }

  /** The entries of `jobId`, times relative to `origin` (ms). */
  describe(jobId: string, origin: number): string[] {
    return (this.entries.get(jobId) ?? []).map(
      (entry) => `+${entry.at - origin} ms ${entry.who}: ${entry.what}`,
    );
  }

  /** A job store that records the job and line calls made through it as `who()` says. */
  store(store: JobStore, who: () => string): JobStore {
    return new Proxy(store, {
      get: (target, property) => {
        const value = Reflect.get(target, property);
        if (typeof value !== 'function') return value;
        if (typeof property !== 'string') return value.bind(target);
        if (LINE_CALLS.has(property)) return this.tracedLineCall(target, property, value, who);
        if (!TRACED_CALLS.has(property)) return value.bind(target);
        return async (first: unknown, ...rest: unknown[]) => {
          const input = typeof first === 'object' && first !== null ? (first as Record<string, unknown>) : {};
          const jobId = typeof first === 'string' ? first : jobIdOf(input);
          const asked = askedOf(property, input);
          try {
            const answer: unknown = await value.call(target, first, ...rest);
            this.recordAnswer(property, jobId, input, answer, who());
            this.add(jobId, who(), `${property}(${asked}) → ${answerOf(answer)}`);
            return answer;
          } catch (error) {
            this.add(jobId, who(), `${property}(${asked}) threw ${(error as Error).name}`);
            throw error;
          }
        };
      },
    });
  }

  private recordAnswer(
    property: string,
    jobId: string,
    input: Record<string, unknown>,
    answer: unknown,
    caller: string,
  ): void {
    if (property === 'joinLine') addTime(this.joins, jobId);
    if (property === 'claimJob' && (answer as ClaimOutcome).status === 'claimed') {
      const claims = this.claims.get(jobId) ?? [];
      // The claim writes the fire check's read time as `started_at` (ADR 0002), not its own `now`.
      const { job } = answer as Extract<ClaimOutcome, { status: 'claimed' }>;
      claims.push({ attempt: Number(input.attempt), at: job.startedAt ?? Number(input.now) });
      this.claims.set(jobId, claims);
      addTime(this.wokenEnds, jobId);
    }
    if (property === 'finishJob' || property === 'retryJob') {
      addTime(this.runEnds, jobId);
      const { woken } = answer as RunEnd;
      const how = `${jobId}'s ${property === 'finishJob' ? 'ending' : 'retry'}`;
      if (woken) this.woke(woken, caller, `handed the slot of ${how}`);
      const held = input.heldSlot as { task: string } | undefined;
      // A slot that came back to the counter with jobs waiting is what a free-slot stall begins with.
      if (!woken && held)
        this.lineEvents.push({ at: Date.now(), who: caller, task: held.task, what: `${how} woke nobody` });
    }
  }

  /** A job woken holding a slot: traced on its own job and on its line. */
  private woke(entry: WokenEntry, caller: string, how: string): void {
    const jobId = entry.message.job.id;
    if (entry.withSlot) addTime(this.wokenWithSlot, jobId);
    this.add(jobId, caller, `woken: ${how}${entry.withSlot ? '' : ' (no slot)'}`);
    this.lineEvents.push({ at: Date.now(), who: caller, task: entry.task, what: `${how} → ${jobId} woken` });
  }

  /** `wakeHeads`, `releaseWoken`, `overdueWoken`: what each woke, gave back or found overdue. */
  private tracedLineCall(
    target: JobStore,
    property: string,
    call: (...args: unknown[]) => unknown,
    who: () => string,
  ) {
    return async (...args: unknown[]) => {
      const answer = await call.apply(target, args);
      const caller = who();
      if (property === 'wakeHeads') {
        const input = args[0] as WakeHeadsInput;
        const woken = answer as WokenEntry[];
        for (const entry of woken) this.woke(entry, caller, `wakeHeads(${input.take} × ${input.count})`);
        if (woken.length === 0 && input.take === 'slot') {
          const line = this.probeLine ? await this.probeLine(input.task).catch(() => 'unreadable') : '';
          this.lineEvents.push({
            at: Date.now(),
            who: caller,
            task: input.task,
            what: `wakeHeads(slot × ${input.count}) woke nobody${line && ` (${line})`}`,
          });
        }
      }
      if (property === 'markWokenResent' && answer === true) {
        const jobId = jobIdAtPosition((args[0] as { position: string }).position);
        this.add(jobId, caller, 'took its resend');
        if (caller.endsWith(DEAD)) addTime(this.lostResends, jobId);
        else this.takenResends.set(jobId, { at: Date.now(), who: caller });
      }
      if (property === 'repairCounters') {
        for (const [task, correction] of answer as Map<string, { was: number; now: number }>) {
          const what = `repairCounters: running ${correction.was} → ${correction.now}`;
          this.lineEvents.push({ at: Date.now(), who: caller, task, what });
        }
      }
      if (property === 'releaseWoken')
        this.released(args[0] as { task: string; position: string }, answer as WokenRelease, caller);
      if (property === 'overdueWoken') {
        const stale = answer as WokenEntry[];
        // Every caller of `overdueWoken` (`resendOverdueWoken`) sends each entry it finds again.
        this.resentWoken += stale.length;
        for (const entry of stale) {
          this.add(
            entry.message.job.id,
            caller,
            `overdue since woken at ${entry.wokenAt}: its message is sent again`,
          );
          this.lineEvents.push({
            at: Date.now(),
            who: caller,
            task: entry.task,
            what: `resend of ${entry.message.job.id}`,
          });
        }
      }
      return answer;
    };
  }

  private released(input: { task: string; position: string }, release: WokenRelease, caller: string): void {
    const jobId = jobIdAtPosition(input.position);
    addTime(this.wokenEnds, jobId);
    this.add(jobId, caller, `releaseWoken → ${release.status}`);
    if (release.status === 'handed') this.woke(release.woken, caller, `handed the slot of woken ${jobId}`);
    else
      this.lineEvents.push({
        at: Date.now(),
        who: caller,
        task: input.task,
        what: `releaseWoken of ${jobId} → ${release.status}`,
      });
  }

  /** An invocation died: the resends it took and had not sent yet are lost. */
  callerDied(who: string): void {
    for (const [jobId, taking] of this.takenResends) {
      if (taking.who !== who) continue;
      this.takenResends.delete(jobId);
      this.lostResends.set(jobId, [...(this.lostResends.get(jobId) ?? []), taking.at]);
    }
  }

  /** A woken job's message was sent (or its send failed): a resend taken for it went (or is lost). */
  private resendWent(jobId: string, sent: boolean): void {
    const taking = this.takenResends.get(jobId);
    if (!taking) return;
    this.takenResends.delete(jobId);
    if (!sent) this.lostResends.set(jobId, [...(this.lostResends.get(jobId) ?? []), taking.at]);
  }

  /** A queue that records the job messages sent through it as `who()` says. */
  queue(queue: JobQueue, who: () => string): JobQueue {
    return {
      send: async (messages: readonly JobMessage[]) => {
        const result = await queue.send(messages);
        const failed = new Set(result.failed);
        for (const message of messages) {
          if (!failed.has(message.job.id)) addTime(this.sends, message.job.id);
          if (message.woken) this.resendWent(message.job.id, !failed.has(message.job.id));
          const revision = message.revision ? ` rev v${message.revision.version}` : '';
          this.add(
            message.job.id,
            who(),
            `send attempt ${message.attempt}${revision} delay ${message.delaySeconds ?? 0}s${failed.has(message.job.id) ? ' FAILED' : ''}`,
          );
        }
        return result;
      },
      changeVisibility: (receiptHandle, seconds) => queue.changeVisibility(receiptHandle, seconds),
    };
  }
}

/** The job id of a line position (`linePosition`: rank#runAt#id). */
function jobIdAtPosition(position: string): string {
  return position.split('#').slice(2).join('#');
}

function addTime(times: Map<string, number[]>, jobId: string): void {
  const list = times.get(jobId) ?? [];
  list.push(Date.now());
  times.set(jobId, list);
}

function jobIdOf(input: Record<string, unknown>): string {
  if (typeof input.jobId === 'string') return input.jobId;
  const message = input.message as { job?: { id?: unknown } } | undefined;
  const job = (input.job ?? message?.job) as { id?: unknown } | undefined;
  return typeof job?.id === 'string' ? job.id : '?';
}

function askedOf(call: string, input: Record<string, unknown>): string {
  if (call === 'claimJob') {
    const reclaim = input.reclaimCancelledFire ? ' reclaim' : '';
    const woken = input.wokenAt === undefined ? '' : ' woken';
    return `attempt ${String(input.attempt)} owner ${String(input.owner).slice(-6)}${reclaim}${woken}`;
  }
  if (call === 'finishJob') {
    const result = input.result as { outcome?: string; attempt?: number } | undefined;
    const reclaim = input.reclaimable ? ' reclaimable' : '';
    return `${result?.outcome} owner ${String(input.owner).slice(-6)}${reclaim}`;
  }
  if (call === 'retryJob')
    return `attempt ${String(input.failedAttempt)} owner ${String(input.owner).slice(-6)}`;
  return '';
}

function answerOf(answer: unknown): string {
  if (answer === undefined) return 'undefined';
  if (typeof answer === 'object' && answer !== null && 'job' in answer && !('status' in answer)) {
    const { job, woken } = answer as RunEnd;
    return `ended (stored ${job.status} attempt ${job.attempt})${woken ? `, woke ${woken.message.job.id}` : ', no hand-off'}`;
  }
  const outcome = answer as {
    status?: string;
    job?: { status?: string; attempt?: number };
    tookWokenSlot?: boolean;
  };
  const job = outcome.job ?? (answer as { status?: string; attempt?: number });
  const stored = job && job !== answer ? ` (stored ${job.status} attempt ${job.attempt})` : '';
  return `${outcome.status ?? '?'}${stored}${outcome.tookWokenSlot ? ', took its woken slot' : ''}`;
}
