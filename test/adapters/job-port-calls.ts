import { isDeepStrictEqual } from 'node:util';
import { ConflictingIdError, LeaseLostError } from '../../lib/core/errors';
import type { Job, ResultOutcome } from '../../lib/core/model/job';
import { ENDED_STATES, type JobAction, type JobState } from '../../lib/core/model/job-states';
import type { ConflictPolicy } from '../../lib/core/model/schedule';
import type { JobRequest } from '../../lib/core/ports/job-store';
import { ACT_AT, FIRST_OWNER, nextAttempt } from './job-state-setups';
import { DAY, MINUTE, type Store, T0 } from './store-fixtures';

/** What the store answered a call: it did what was asked, or it refused (as the port says it refuses). */
export type Answer = 'applied' | 'refused';

/**
 * A call of the job store's port as its caller makes it, at `ACT_AT`. One call may perform several
 * actions of the table (a claim is a take-over when it finds a stalled run): which one, the state it
 * finds decides.
 */
export interface PortCall {
  name: string;
  performs: readonly JobAction[];
  /** Calls it for `job`, stored as `stored`, aiming at state `to` (what it ends the run as, for a finish). */
  apply(store: Store, job: JobRequest, stored: Job | undefined, to: JobState): Promise<Answer>;
}

/** `applied` when `call` resolves, `refused` when it rejects with a `refusal`; anything else is thrown. */
async function refusedWith(
  call: Promise<unknown>,
  refusal: new (...args: never[]) => Error,
): Promise<Answer> {
  try {
    await call;
    return 'applied';
  } catch (error) {
    if (error instanceof refusal) return 'refused';
    throw error;
  }
}

function addJob(conflictPolicy: ConflictPolicy, performs: readonly JobAction[]): PortCall {
  return {
    name: `createJob (conflict policy ${conflictPolicy})`,
    performs,
    async apply(store, job) {
      const added = store.createJob({ job, conflictPolicy, now: ACT_AT, parkUntilDue: false });
      const answer = await refusedWith(added, ConflictingIdError);
      return answer === 'applied' && (await added).status === 'kept' ? 'refused' : answer;
    },
  };
}

function claimNextAttempt(name: string, performs: readonly JobAction[], recheck: boolean): PortCall {
  return {
    name,
    performs,
    async apply(store, job, stored) {
      const outcome = await store.claimJob({
        // A message carries the creation it was sent for
        job: { ...job, ...(stored?.createToken !== undefined && { createToken: stored.createToken }) },
        attempt: nextAttempt(stored),
        owner: 'w2',
        now: ACT_AT,
        leaseUntil: ACT_AT + MINUTE,
        ...(recheck && { reclaimCancelledFire: true }),
      });
      if (outcome.status === 'no_slot') throw new Error('a claim without a slot limit answered no_slot');
      return outcome.status === 'claimed' ? 'applied' : 'refused';
    },
  };
}

/** The ending a finish writes for a job to end in `to`. */
function endingFor(to: JobState): { outcome: ResultOutcome; reclaimable?: true } {
  if (to === 'cancelled_by_check') return { outcome: 'cancelled', reclaimable: true };
  const outcome = ENDED_STATES.find((ended) => ended === to);
  if (outcome === undefined) throw new Error(`no finishJob ends a job in state '${to}'`);
  return { outcome };
}

/** Every call of the port that moves a job from one state of the table to another. */
export const PORT_CALLS: readonly PortCall[] = [
  addJob('exception', ['create']),
  addJob('do_nothing', ['create']),
  addJob('replace', ['create', 'replace']),
  claimNextAttempt('claimJob (a delivery of the next attempt)', ['claim', 'take_over'], false),
  claimNextAttempt(
    'claimJob (a fire delivery that checks its schedule again)',
    ['claim', 'take_over', 'reclaim'],
    true,
  ),
  {
    name: 'finishJob (by the worker of the first attempt)',
    performs: ['finish'],
    apply(store, job, stored, to) {
      const { outcome, reclaimable } = endingFor(to);
      const ended = store.finishJob({
        jobId: job.id,
        owner: FIRST_OWNER,
        result: { outcome, startedAt: T0, finishedAt: ACT_AT, attempt: stored?.attempt ?? 1 },
        expiresAt: ACT_AT + DAY,
        ...(reclaimable && { reclaimable }),
      });
      return refusedWith(ended, LeaseLostError);
    },
  },
  {
    name: 'retryJob (by the worker of the first attempt, or the reaper)',
    performs: ['retry'],
    apply(store, job, stored) {
      const retried = store.retryJob({
        jobId: job.id,
        owner: FIRST_OWNER,
        failedAttempt: stored?.attempt ?? 1,
        error: { type: 'Error', message: 'failed again' },
        retryAt: ACT_AT + MINUTE,
        now: ACT_AT,
      });
      return refusedWith(retried, LeaseLostError);
    },
  },
  {
    name: 'cancelJob',
    performs: ['cancel'],
    async apply(store, job, stored) {
      const cancelled = await store.cancelJob(job.id, ACT_AT, ACT_AT + DAY, job);
      // Cancelling a job cancelled for good answers it unchanged
      const unchanged = cancelled !== undefined && isDeepStrictEqual(cancelled, stored);
      return cancelled === undefined || unchanged ? 'refused' : 'applied';
    },
  },
  {
    name: 'requestCancel',
    performs: ['request_cancel'],
    async apply(store, job) {
      const asked = await store.requestCancel(job.id, ACT_AT);
      return asked?.cancelRequestedAt === ACT_AT ? 'applied' : 'refused';
    },
  },
  {
    name: 'retryEndedJob',
    performs: ['retry_ended'],
    async apply(store, job) {
      const retried = await store.retryEndedJob({
        jobId: job.id,
        now: ACT_AT,
        owner: 'admin',
        leaseUntil: ACT_AT + MINUTE,
      });
      return retried?.status === 'retried' ? 'applied' : 'refused';
    },
  },
];
