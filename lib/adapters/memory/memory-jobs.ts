import { randomUUID } from 'node:crypto';
import type { EpochMs } from '../../core/clock';
import { ConflictingIdError, LeaseLostError } from '../../core/errors';
import type { Job, JobResult } from '../../core/model/job';
import { historyAfterRetry } from '../../core/model/job';
import { matchesMetadata } from '../../core/model/metadata';
import type { Page, PageRequest } from '../../core/model/page';
import { parksBeyondQueueDelay } from '../../core/ports/job-queue';
import {
  type ClaimJobInput,
  type ClaimOutcome,
  type CreateJobInput,
  checkJobFilter,
  dedupeRecordExpiresAt,
  type FinishJobInput,
  isRetryableOutcome,
  type JobFilter,
  type JobRequest,
  type JobStore,
  type RetryEndedJobInput,
  type RetryEndedJobOutcome,
  type RetryJobInput,
  type RunEnd,
} from '../../core/ports/job-store';
import { sameCopy, type WakeTime, type WokenEntry, wakeTime } from '../../core/ports/waiting-line';
import { jobListing } from '../page-cursor';
import {
  claimable,
  isExpired,
  isRecordGone,
  listingPositionOf,
  messageOnlyRecord,
  newJob,
  ourEarlierClaim,
  present,
  type StoredJob,
  wholeSecondsUp,
} from './memory-job-records';
import { MemoryLineStore } from './memory-line-store';
import { pageAfter } from './memory-pages';

/**
 * The in-memory reference `JobStore` (same contract suite as the DynamoDB store). Expiry has the
 * DynamoDB store's whole-second resolution (rounded up). Every method is atomic.
 */
export class MemoryJobStore extends MemoryLineStore implements JobStore {
  private readonly jobs = new Map<string, StoredJob>();

  async createJob(input: CreateJobInput): Promise<{ status: 'added' | 'replaced' | 'kept'; job: Job }> {
    const visible = this.live(input.job.id, input.now);
    const stored = this.jobs.get(input.job.id);
    const fireRecord = stored?.origin === 'schedule' && !isRecordGone(stored, input.now) ? stored : undefined;
    const existing = visible ?? fireRecord;
    if (existing && input.conflictPolicy === 'do_nothing') return { status: 'kept', job: present(existing) };
    if (existing && (input.conflictPolicy === 'exception' || existing.status === 'running')) {
      throw new ConflictingIdError('job', input.job.id);
    }
    const job: StoredJob = {
      ...newJob(input.job, input.now),
      createToken: randomUUID(),
      parkedUntil: input.parkUntilDue ? input.job.runAt : (input.resendIfUnclaimedAt ?? null),
      recordExpiresAt: null,
      reclaimable: false,
    };
    this.jobs.set(job.id, job);
    return { status: visible ? 'replaced' : 'added', job: present(job) };
  }

  async parkUnclaimedJob(jobId: string): Promise<Job | undefined> {
    const job = this.jobs.get(jobId);
    if (job?.status !== 'queued' || job.attempt !== 0) return undefined;
    job.parkedUntil = job.runAt;
    return present(job);
  }

  async claimJob(input: ClaimJobInput): Promise<ClaimOutcome> {
    const existing = this.jobs.get(input.job.id);
    const reclaimable = input.reclaimCancelledFire === true && existing?.reclaimable === true;
    // This same claim made again: its earlier try applied, and its answer was lost
    if (existing && ourEarlierClaim(existing, input)) {
      return { status: 'claimed', job: present(existing), ...(existing.countedRun && { countedRun: true }) };
    }
    if (existing && !claimable(existing, input)) {
      if (existing.status !== 'cancelled') return { status: 'duplicate', job: present(existing) };
      const reclaimLater = reclaimable && existing.attempt > input.attempt;
      return {
        status: 'cancelled',
        job: present(existing),
        ...(reclaimLater && { reclaimAsAttempt: existing.attempt }),
      };
    }
    const limit = input.concurrencyLimit;
    const woken = this.wokenEntryOf(input);
    const tookWokenSlot = woken?.withSlot === true;
    // A handed slot replaces a free one; a rate limit's start is taken either way.
    const gate = {
      now: input.now,
      ...(limit !== undefined && !tookWokenSlot && { limit }),
      ...(input.rateLimit && { rate: input.rateLimit }),
    };
    if (gate.limit !== undefined || gate.rate) {
      const start = this.slots.take(input.job.task, gate);
      if (!start.taken) {
        const { running, nextStartAt } = start;
        if (nextStartAt === undefined) return { status: 'no_slot', running };
        return { status: 'no_slot', running, nextStartAt, ...(tookWokenSlot && { wokenSlot: true }) };
      }
    }
    if (woken) this.lines.removeWoken(input.job.task, woken.position);
    if (tookWokenSlot && limit === undefined) this.slots.giveBack(input.job.task);
    const job: StoredJob = {
      ...newJob(input.job, input.now),
      runAt: existing?.runAt ?? input.job.runAt,
      createdAt: existing?.createdAt ?? input.now,
      attempt: input.attempt,
      status: 'running',
      leaseOwner: input.owner,
      leaseUntil: input.leaseUntil,
      holdsSlot: limit !== undefined,
      startedAt: input.check?.startedAt ?? input.now,
      parkedUntil: null,
      recordExpiresAt: null,
      reclaimable: false,
      ...(existing?.attemptBase !== undefined && { attemptBase: existing.attemptBase }),
      ...(existing?.history !== undefined && { history: existing.history }),
      ...(existing?.countedRun && { countedRun: true as const }),
      ...(existing?.cancelRequestedAt !== undefined && { cancelRequestedAt: existing.cancelRequestedAt }),
    };
    // A checked claim stores its check; any claim keeps the revision of the definition its run has.
    const claimedRevision = input.check?.revision ?? existing?.claimedRevision;
    if (claimedRevision) job.claimedRevision = { ...claimedRevision };
    if (input.check?.failed) job.checkFailed = true;
    // The creation token is the stored job's (a claim never writes one, as in DynamoDB)
    delete job.createToken;
    if (existing?.createToken !== undefined) job.createToken = existing.createToken;
    this.jobs.set(job.id, job);
    return {
      status: 'claimed',
      job: present(job),
      ...(reclaimable && { reclaimed: true }),
      ...(tookWokenSlot && { tookWokenSlot: true }),
      ...(existing?.countedRun && { countedRun: true }),
    };
  }

  /**
   * The job's half of `startCappedRun` (see `MemoryStore`): `counted` when an earlier try counted this
   * run, `not_running` when it is not running under `owner`, else `mark` (and, with `apply`, marked).
   */
  markRunCounted(jobId: string, owner: string, apply: boolean): 'mark' | 'counted' | 'not_running' {
    const job = this.jobs.get(jobId);
    if (job?.status !== 'running' || job.leaseOwner !== owner) return 'not_running';
    if (job.countedRun) return 'counted';
    if (apply) job.countedRun = true;
    return 'mark';
  }

  async finishJob(input: FinishJobInput): Promise<RunEnd> {
    const done = this.jobs.get(input.jobId);
    const repeated =
      done?.status === input.result.outcome &&
      done.finishedAt === input.result.finishedAt &&
      done.leaseOwner === null;
    if (done && repeated) return { job: present(done) }; // a retried request whose first try applied
    const job = this.ownedRun(input.jobId, input.owner);
    const result: JobResult = { ...structuredClone(input.result), attempt: job.attempt };
    const woken = this.endRun(job, wakeTime(input.result.finishedAt, input.heldSlot?.carriedOn));
    Object.assign(job, {
      status: result.outcome,
      startedAt: result.startedAt,
      finishedAt: result.finishedAt,
      result,
      expiresAt: wholeSecondsUp(input.expiresAt),
      recordExpiresAt: wholeSecondsUp(dedupeRecordExpiresAt(result.finishedAt, input.expiresAt)),
      reclaimable: input.reclaimable === true,
    });
    return { job: present(job), ...(woken && { woken }) };
  }

  async retryJob(input: RetryJobInput): Promise<RunEnd> {
    const done = this.jobs.get(input.jobId);
    const repeated =
      done?.status === 'retrying' &&
      done.attempt === input.failedAttempt &&
      done.result?.finishedAt === input.now;
    if (done && repeated) return { job: present(done) }; // a retried request whose first try applied
    const job = this.ownedRun(input.jobId, input.owner, input.failedAttempt);
    const woken = this.endRun(job, wakeTime(input.now, input.heldSlot?.carriedOn));
    const result: JobResult = {
      outcome: 'error',
      startedAt: job.startedAt,
      finishedAt: input.now,
      attempt: job.attempt,
    };
    if (input.error) result.error = structuredClone(input.error);
    const parked = parksBeyondQueueDelay(input.retryAt, input.now);
    Object.assign(job, {
      status: 'retrying',
      runAt: input.retryAt,
      result,
      parkedUntil: parked ? input.retryAt : null,
    });
    return { job: present(job), ...(woken && { woken }) };
  }

  async retryEndedJob(input: RetryEndedJobInput): Promise<RetryEndedJobOutcome | undefined> {
    const job = this.live(input.jobId, input.now);
    if (!job) return undefined;
    if (!isRetryableOutcome(job.status)) return { status: 'not_retryable', job: present(job) };
    delete job.cancelRequestedAt;
    Object.assign(job, {
      status: 'retrying',
      runAt: input.now,
      startDeadline: null,
      attemptBase: job.attempt,
      history: historyAfterRetry(job),
      startedAt: null,
      finishedAt: null,
      result: null,
      expiresAt: null,
      recordExpiresAt: null,
      reclaimable: false,
      parkedUntil: input.now,
      leaseOwner: input.owner,
      leaseUntil: input.leaseUntil,
    });
    return { status: 'retried', job: present(job) };
  }

  async getJob(id: string, now: EpochMs): Promise<Job | undefined> {
    const job = this.live(id, now);
    return job && present(job);
  }

  async getJobRecord(id: string): Promise<Job | undefined> {
    const job = this.jobs.get(id);
    return job && present(job);
  }

  async listJobs(filter: JobFilter, page: PageRequest, now: EpochMs): Promise<Page<Job>> {
    checkJobFilter(filter);
    const positionOf = listingPositionOf(filter);
    const matching = [...this.jobs.values()]
      .filter(
        (job) =>
          !isExpired(job, now) &&
          (filter.scheduleId === undefined || job.scheduleId === filter.scheduleId) &&
          (filter.task === undefined || job.task === filter.task) &&
          (filter.status === undefined || job.status === filter.status) &&
          matchesMetadata(job.metadata, filter.metadata) &&
          (filter.finishedFrom === undefined || (job.finishedAt ?? 0) >= filter.finishedFrom) &&
          (filter.finishedBefore === undefined || (job.finishedAt ?? 0) < filter.finishedBefore),
      )
      .sort((a, b) => (positionOf(a) < positionOf(b) ? -1 : 1));
    return pageAfter(matching, page, jobListing(filter), positionOf, present);
  }

  /** Nothing to note: this store lists a task's jobs from all jobs it holds. */
  async logFiresToSend(_jobs: readonly JobRequest[], _now: EpochMs): Promise<ReadonlySet<string>> {
    return new Set();
  }

  async cancelJob(
    id: string,
    now: EpochMs,
    expiresAt: EpochMs,
    request?: JobRequest,
  ): Promise<Job | undefined> {
    const existing = this.jobs.get(id);
    if (existing?.status === 'cancelled' && !existing.reclaimable) return present(existing);
    const cancellable = !existing || existing.reclaimable || ['queued', 'retrying'].includes(existing.status);
    if (!cancellable) return undefined;
    const base: StoredJob = existing ?? messageOnlyRecord(id, now, request);
    const job: StoredJob = {
      ...base,
      status: 'cancelled',
      leaseOwner: null,
      leaseUntil: null,
      finishedAt: now,
      result: { outcome: 'cancelled', startedAt: base.startedAt, finishedAt: now, attempt: base.attempt },
      expiresAt: wholeSecondsUp(expiresAt),
      parkedUntil: null,
      recordExpiresAt: wholeSecondsUp(dedupeRecordExpiresAt(now, expiresAt)),
      reclaimable: false,
    };
    this.jobs.set(id, job);
    return present(job);
  }

  async requestCancel(id: string, now: EpochMs): Promise<Job | undefined> {
    const job = this.jobs.get(id);
    if (job?.status !== 'running') return undefined;
    job.cancelRequestedAt ??= now;
    return present(job);
  }

  async isCancelRequested(id: string, owner: string): Promise<boolean> {
    const job = this.jobs.get(id);
    return job?.leaseOwner === owner && job.cancelRequestedAt !== undefined;
  }

  async acquireDueJobs(
    owner: string,
    now: EpochMs,
    dueBefore: EpochMs,
    leaseMs: number,
    limit: number,
  ): Promise<Job[]> {
    const due = [...this.jobs.values()]
      .filter(
        (job) =>
          job.parkedUntil !== null &&
          job.parkedUntil <= dueBefore &&
          (job.status === 'queued' || job.status === 'retrying') &&
          (job.leaseUntil === null || job.leaseUntil < now),
      )
      .sort((a, b) => (a.parkedUntil ?? 0) - (b.parkedUntil ?? 0))
      .slice(0, Math.max(0, limit));
    for (const job of due) Object.assign(job, { leaseOwner: owner, leaseUntil: now + leaseMs });
    return due.map(present);
  }

  async markJobSent(jobId: string, owner: string): Promise<void> {
    const job = this.jobs.get(jobId);
    if (!job || job.parkedUntil === null) return;
    if (job.leaseOwner !== owner) throw new LeaseLostError('job', jobId, owner);
    Object.assign(job, { parkedUntil: null, leaseOwner: null, leaseUntil: null });
  }

  async findExpiredJobLeases(now: EpochMs, limit: number): Promise<Job[]> {
    return [...this.jobs.values()]
      .filter(
        (job) => job.status === 'running' && job.holdsSlot && job.leaseUntil !== null && job.leaseUntil < now,
      )
      .sort((a, b) => (a.leaseUntil ?? 0) - (b.leaseUntil ?? 0))
      .slice(0, Math.max(0, limit))
      .map(present);
  }

  async runningCounts(): Promise<Map<string, number>> {
    return this.slots.runningCounts();
  }

  async repairCounters(now: EpochMs): Promise<Map<string, { was: number; now: number }>> {
    const actual = this.lines.wokenSlots();
    for (const job of this.jobs.values()) {
      if (job.status === 'running' && job.holdsSlot) actual.set(job.task, (actual.get(job.task) ?? 0) + 1);
    }
    return this.slots.repair(actual, now);
  }

  /** Forgets the jobs whose dedupe record has ended by `now`, as DynamoDB's TTL does (a test aid; not part of the port). */
  deleteExpiredRecords(now: EpochMs): void {
    for (const [id, job] of this.jobs) if (isRecordGone(job, now)) this.jobs.delete(id);
  }

  /** The woken entry the claim takes, while it carries the claim's copy of the job. */
  private wokenEntryOf(input: ClaimJobInput): WokenEntry | undefined {
    if (!input.woken) return undefined;
    const entry = this.lines.wokenEntry(input.job.task, input.woken.position);
    return entry && sameCopy(entry.message, input.woken.copy) ? entry : undefined;
  }

  private live(id: string, now: EpochMs): StoredJob | undefined {
    const job = this.jobs.get(id);
    return job && !isExpired(job, now) ? job : undefined;
  }

  private ownedRun(jobId: string, owner: string, attempt?: number): StoredJob {
    const job = this.jobs.get(jobId);
    const owned =
      job?.leaseOwner === owner &&
      job.status === 'running' &&
      (attempt === undefined || job.attempt === attempt);
    if (!job || !owned) throw new LeaseLostError('job', jobId, owner);
    return job;
  }

  /** Clears the lease; a slot it held comes back (`MemoryHandOff.slotBack`). */
  private endRun(job: StoredJob, at: WakeTime): WokenEntry | undefined {
    const woken = job.holdsSlot ? this.handOff.slotBack(job.task, at) : undefined;
    Object.assign(job, { leaseOwner: null, leaseUntil: null, holdsSlot: false });
    return woken;
  }
}
