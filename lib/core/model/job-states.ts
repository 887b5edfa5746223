import type { EpochMs } from '../clock';
import { type Job, RESULT_OUTCOMES } from './job';

/**
 * Every state a job can be in, as its stored record and the time say (ADR 0009):
 * - `absent`: no record (a fire nobody claimed yet, a job whose record expired);
 * - `queued`: created (`add_job`, `run_schedule_now`) and never claimed;
 * - `running`: claimed, under a lease that has not ended;
 * - `stalled`: claimed, but its lease ended: its worker vanished or is late. One holding a slot is the
 *   reaper's to end; one without is taken over by the next delivery of its next attempt. Either retries
 *   the run as stored, unless the fire check its claim stored failed (`checkFailed`: it never started);
 * - `retrying`: an attempt failed and the next one is on its way;
 * - `cancelled_by_check`: a fire its schedule check cancelled (the schedule changed after it was sent):
 *   a later delivery of the fire, which checks the schedule again, may still claim it;
 * - `success`, `error`, `missed_start_deadline`, `cancelled`, `abandoned`: ended, with a result.
 */
export const JOB_STATES = [
  'absent',
  'queued',
  'running',
  'stalled',
  'retrying',
  'cancelled_by_check',
  'success',
  'error',
  'missed_start_deadline',
  'cancelled',
  'abandoned',
] as const;
export type JobState = (typeof JOB_STATES)[number];

/** The states a job has ended in: `retry_job` may start some of them again. */
export const ENDED_STATES = RESULT_OUTCOMES;

/**
 * What a store does to a job (each a method of `JobStore`):
 * - `create`: `add_job` of a new id; `replace`: `add_job` with `conflict_policy: replace` of an id in use
 *   by a job that is not running (a message sent for the old job finds it replaced and runs nothing);
 * - `claim`: a delivery of a later attempt takes a queued or retrying job, or a fire nobody claimed yet;
 * - `reclaim`: a fire's delivery that checks its schedule again takes a fire its check cancelled;
 * - `take_over`: a delivery of the next attempt takes a stalled run that holds no slot;
 * - `finish`: the run's owner records how it ended; `retry`: the owner (or, for a stalled run that holds
 *   a slot, the tick's reaper) schedules the next attempt;
 * - `cancel`: `cancel_job` of a job that has not started; `request_cancel`: `cancel_job` of a claimed
 *   run, which stays where it is (its worker stops the handler and finishes it `cancelled`; a takeover
 *   or the reaper's attempt finishes it so without running it);
 * - `retry_ended`: `retry_job` of an ended job.
 *
 * An action whose `to` lists the state it starts from leaves a job in that state.
 */
export const JOB_ACTIONS = [
  'create',
  'replace',
  'claim',
  'reclaim',
  'take_over',
  'finish',
  'retry',
  'cancel',
  'request_cancel',
  'retry_ended',
] as const;
export type JobAction = (typeof JOB_ACTIONS)[number];

/**
 * The transition table: from which states each action moves a job, and to which. Any action from a
 * state it does not list is refused and writes nothing. Both stores implement exactly this table (the
 * contract suite tries every action from every state), and the worker decides from it.
 */
export const JOB_TRANSITIONS: Readonly<
  Record<JobAction, { readonly from: readonly JobState[]; readonly to: readonly JobState[] }>
> = {
  create: { from: ['absent'], to: ['queued'] },
  replace: { from: ['queued', 'retrying', 'cancelled_by_check', ...ENDED_STATES], to: ['queued'] },
  claim: { from: ['absent', 'queued', 'retrying'], to: ['running'] },
  reclaim: { from: ['cancelled_by_check'], to: ['running'] },
  take_over: { from: ['stalled'], to: ['running'] },
  finish: {
    from: ['running', 'stalled'],
    to: ['success', 'error', 'missed_start_deadline', 'cancelled', 'cancelled_by_check', 'abandoned'],
  },
  retry: { from: ['running', 'stalled'], to: ['retrying'] },
  cancel: { from: ['absent', 'queued', 'retrying', 'cancelled_by_check'], to: ['cancelled'] },
  request_cancel: { from: ['running', 'stalled'], to: ['running', 'stalled'] },
  retry_ended: { from: ['error', 'missed_start_deadline', 'abandoned'], to: ['retrying'] },
};

/** Whether `action` may move a job that is in `state`. */
export function allows(action: JobAction, state: JobState): boolean {
  return JOB_TRANSITIONS[action].from.includes(state);
}

/** The state of a stored job (undefined: none is stored) at `now`. */
export function jobStateOf(
  job: (Pick<Job, 'status' | 'leaseUntil'> & { reclaimable?: boolean }) | undefined,
  now: EpochMs,
): JobState {
  if (!job) return 'absent';
  switch (job.status) {
    case 'running':
      return job.leaseUntil !== null && job.leaseUntil < now ? 'stalled' : 'running';
    case 'cancelled':
      return job.reclaimable ? 'cancelled_by_check' : 'cancelled';
    default:
      return job.status;
  }
}
