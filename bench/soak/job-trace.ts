import type { JobMessage, JobQueue } from '../../lib/core/ports/job-queue';
import type { JobStore } from '../../lib/core/ports/job-store';

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
 * What the platform did with each job during the soak, for the report of a violation: every claim,
 * ending and cancellation (with its outcome), and every message sent for it (attempt and revision).
 * Kept per job id; a few entries per fire.
 */
export class JobTrace {
  private readonly entries = new Map<string, TraceEntry[]>();
  /** When each job joined its task's waiting line (every time it did), by job id. */
  readonly joins = new Map<string, number[]>();
  /** When each job was held in its line to be woken (its message is sent next), by job id. */
  readonly wakes = new Map<string, number[]>();
  /** When each claim of a job answered, whatever the answer, by job id. */
  readonly claimAnswers = new Map<string, number[]>();
  /** When a run of each job wrote its result or its retry (which gives a slot back), by job id. */
  readonly runEnds = new Map<string, number[]>();
  /** Lists the held entries of a task's line, for a wake that found free slots and held nothing. */
  probeLine: ((task: string) => Promise<string>) | undefined;
  /** Every wake of a line (`leaseLineHead`): when, by whom, for which task, how many asked and held. */
  readonly lineWakes: { at: number; who: string; task: string; what: string }[] = [];
  /** Successful claims per job id: attempt and the `started_at` the claim wrote. */
  private readonly claims = new Map<string, { attempt: number; at: number }[]>();

  /**
   * When the run that a handler started as `attempt` at `startedAt` was claimed, as the platform counts
   * a fire's start: the `started_at` its claim wrote (the worker's clock as it began the claim, not when
   * the claim answered: docs/admin-api.md promises no job with a `started_at` after a pause or removal
   * returned, and a slow claim can answer after the call returned though it began before). A takeover
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

  /** A job store that records the job calls made through it as `who()` says. */
  store(store: JobStore, who: () => string): JobStore {
    return new Proxy(store, {
      get: (target, property) => {
        const value = Reflect.get(target, property);
        if (typeof value !== 'function') return value;
        if (property === 'leaseLineHead') return this.tracedWake(target, value, who);
        if (typeof property !== 'string' || !TRACED_CALLS.has(property)) return value.bind(target);
        return async (first: unknown, ...rest: unknown[]) => {
          const input = typeof first === 'object' && first !== null ? (first as Record<string, unknown>) : {};
          const jobId = typeof first === 'string' ? first : jobIdOf(input);
          const asked = askedOf(property, input);
          try {
            const answer: unknown = await value.call(target, first, ...rest);
            if (property === 'joinLine') addTime(this.joins, jobId);
            if (property === 'claimJob') addTime(this.claimAnswers, jobId);
            if (property === 'finishJob' || property === 'retryJob') addTime(this.runEnds, jobId);
            if (property === 'claimJob' && (answer as { status?: string }).status === 'claimed') {
              const claims = this.claims.get(jobId) ?? [];
              claims.push({ attempt: Number(input.attempt), at: Number(input.now) });
              this.claims.set(jobId, claims);
            }
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

  /** `leaseLineHead`, recording the jobs it holds to wake (the entries of a task's line). */
  private tracedWake(target: JobStore, call: (...args: unknown[]) => unknown, who: () => string) {
    return async (...args: unknown[]) => {
      const { leased, task, count, only, owner } = args[0] as {
        leased?: string;
        task?: string;
        count?: number;
        only?: string;
        owner?: string;
      };
      const entries = (await call.apply(target, args)) as { message: JobMessage }[];
      const at = Date.now();
      const held =
        entries.length === 0 && only === undefined && this.probeLine
          ? ` (held: ${await this.probeLine(String(task))})`
          : '';
      this.lineWakes.push({
        at,
        who: who(),
        task: String(task),
        what: `${only === undefined ? 'wake' : 'own turn'} by ${String(owner).slice(-6)} ${leased} ${count} → ${entries.map((entry) => entry.message.job.id).join(' ') || 'none'}${held}`,
      });
      for (const entry of entries) addTime(this.wakes, entry.message.job.id);
      for (const entry of entries)
        this.add(
          entry.message.job.id,
          who(),
          `held in its line to be woken (${leased === 'skip' ? 'slot given back' : 'free slots'})`,
        );
      return entries;
    };
  }

  /** A queue that records the job messages sent through it as `who()` says. */
  queue(queue: JobQueue, who: () => string): JobQueue {
    return {
      send: async (messages: readonly JobMessage[]) => {
        const result = await queue.send(messages);
        const failed = new Set(result.failed);
        for (const message of messages) {
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
    return `attempt ${String(input.attempt)} owner ${String(input.owner).slice(-6)}${reclaim}`;
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
  const outcome = answer as { status?: string; job?: { status?: string; attempt?: number } };
  const job = outcome.job ?? (answer as { status?: string; attempt?: number });
  return `${outcome.status ?? '?'}${job && job !== answer ? ` (stored ${job.status} attempt ${job.attempt})` : ''}`;
}
