import type { Job, ResultOutcome } from '../../lib/core/model/job';
import { type JobState, jobStateOf } from '../../lib/core/model/job-states';
import type { JobRequest } from '../../lib/core/ports/job-store';
import { DAY, MINUTE, SECOND, type Store, T0 } from './store-fixtures';

/** The worker whose claim at T0 started the job's first attempt. */
export const FIRST_OWNER = 'w1';

/** When the transition contract acts on a job: after a stalled run's lease ended, before a running one's. */
export const ACT_AT = T0 + 10 * MINUTE;

type Setup = (store: Store, job: JobRequest) => Promise<unknown>;

/** Attempt 1 of `job`, claimed at T0 by `FIRST_OWNER` under a lease ending at `leaseUntil`. */
function claimFirst(store: Store, job: JobRequest, leaseUntil: number): Promise<unknown> {
  return store.claimJob({ job, attempt: 1, owner: FIRST_OWNER, now: T0, leaseUntil });
}

/** Attempt 1 of `job`, run and ended `outcome` (a schedule check's cancellation when `reclaimable`). */
async function endFirst(store: Store, job: JobRequest, outcome: ResultOutcome, reclaimable = false) {
  await claimFirst(store, job, T0 + MINUTE);
  await store.finishJob({
    jobId: job.id,
    owner: FIRST_OWNER,
    result: { outcome, startedAt: T0, finishedAt: T0 + SECOND, attempt: 1 },
    expiresAt: T0 + DAY,
    ...(reclaimable && { reclaimable }),
  });
}

/**
 * How a job gets into each state of the table through the store's port, as the platform brings it
 * there: the admin API adds it, a worker claims, runs, retries or ends it, `cancel_job` cancels it.
 * The state holds at `ACT_AT`.
 */
export const BRING_TO: Readonly<Record<JobState, Setup>> = {
  absent: async () => undefined,
  queued: (store, job) => store.createJob({ job, conflictPolicy: 'exception', now: T0, parkUntilDue: false }),
  running: (store, job) => claimFirst(store, job, ACT_AT + MINUTE),
  stalled: (store, job) => claimFirst(store, job, ACT_AT - MINUTE),
  retrying: async (store, job) => {
    await claimFirst(store, job, T0 + MINUTE);
    await store.retryJob({
      jobId: job.id,
      owner: FIRST_OWNER,
      failedAttempt: 1,
      error: { type: 'Error', message: 'failed' },
      retryAt: T0 + 2 * MINUTE,
      now: T0 + SECOND,
    });
  },
  cancelled_by_check: (store, job) => endFirst(store, job, 'cancelled', true),
  success: (store, job) => endFirst(store, job, 'success'),
  error: (store, job) => endFirst(store, job, 'error'),
  missed_start_deadline: (store, job) => endFirst(store, job, 'missed_start_deadline'),
  abandoned: (store, job) => endFirst(store, job, 'abandoned'),
  cancelled: async (store, job) => {
    await BRING_TO.queued(store, job);
    await store.cancelJob(job.id, T0 + SECOND, T0 + DAY, job);
  },
};

/** The attempt a delivery after `stored` is for: the next one (the first for a job never claimed). */
export function nextAttempt(stored: Job | undefined): number {
  return (stored?.attempt ?? 0) + 1;
}

/**
 * The state a read of the job shows at `ACT_AT`: a cancellation by a schedule check reads as any
 * cancellation (the port keeps the difference to itself).
 */
export async function readState(store: Store, id: string): Promise<{ job?: Job; state: JobState }> {
  const job = await store.getJob(id, ACT_AT);
  return { ...(job && { job }), state: jobStateOf(job, ACT_AT) };
}

/**
 * The job's state at `ACT_AT`, a cancellation told apart by what tells it apart: a delivery that
 * checks its schedule again may claim a cancellation by a check, and no other. That claim writes, so
 * this is the last look at the job.
 */
export async function finalState(store: Store, job: JobRequest): Promise<JobState> {
  const { job: stored, state } = await readState(store, job.id);
  if (state !== 'cancelled') return state;
  const probe = await store.claimJob({
    job,
    attempt: nextAttempt(stored),
    owner: 'probe',
    now: ACT_AT,
    leaseUntil: ACT_AT + MINUTE,
    reclaimCancelledFire: true,
  });
  return probe.status === 'claimed' ? 'cancelled_by_check' : 'cancelled';
}
