import type { Job } from '../lib/core/model/job';
import type { Schedule } from '../lib/core/model/schedule';

/**
 * Schedules with `max_runs`, changed while the fires they sent ahead wait in the queue: a pause then a
 * resume, a pause then a replay, a new trigger, a replace. Each change starts a new chain from the fires
 * that started (ADR 0008): a fire it cancels never counts, one it lets run counts as it starts, and no
 * fire starts past `max_runs`. So each schedule must run exactly `max_runs` fires and finish. The soak
 * runs the same scripts on the real store.
 */
export const CAPPED_MAX_RUNS = 20;
export const CHANGE_AT_MS = 5_000;
export const SECOND_CHANGE_AT_MS = 8_000;

export type CappedChange = 'pause' | 'resume' | 'replay' | 'trigger' | 'replace';

export const CAPPED_SCRIPTS: readonly (readonly { kind: CappedChange; atMs: number }[])[] = [
  [
    { kind: 'pause', atMs: CHANGE_AT_MS },
    { kind: 'resume', atMs: SECOND_CHANGE_AT_MS },
  ],
  [
    { kind: 'pause', atMs: CHANGE_AT_MS },
    { kind: 'replay', atMs: SECOND_CHANGE_AT_MS },
  ],
  [{ kind: 'trigger', atMs: CHANGE_AT_MS }],
  [{ kind: 'replace', atMs: CHANGE_AT_MS }],
];

/** The schedule every second from `firstFire`, capped at `CAPPED_MAX_RUNS`. */
export function cappedAddRequest(
  id: string,
  task: string,
  payload: unknown,
  firstFire: number,
  conflictPolicy: 'exception' | 'replace',
): Record<string, unknown> {
  return {
    action: 'add_schedule',
    id,
    task,
    trigger: { type: 'interval', seconds: 1, start_at: new Date(firstFire).toISOString() },
    payload,
    max_runs: CAPPED_MAX_RUNS,
    keep_finished: true,
    coalesce: 'all',
    misfire_grace_seconds: 3_600,
    conflict_policy: conflictPolicy,
  };
}

/** The admin request of one step of a script (a replace adds the schedule again, as it was). */
export function cappedChangeRequest(
  kind: CappedChange,
  id: string,
  task: string,
  payload: unknown,
  firstFire: number,
): Record<string, unknown> {
  if (kind === 'pause') return { action: 'pause_schedule', id };
  if (kind === 'resume') return { action: 'resume_schedule', id };
  if (kind === 'replay') return { action: 'resume_schedule', id, replay_missed: true };
  if (kind === 'trigger') {
    const trigger = { type: 'interval', seconds: 2, start_at: new Date(firstFire).toISOString() };
    return { action: 'update_schedule', id, trigger };
  }
  return cappedAddRequest(id, task, payload, firstFire, 'replace');
}

/**
 * What a capped schedule did wrong once everything ended. `ran` are the jobs of its fires that ran to
 * their end (a success, or abandoned after every attempt was cut short); `handlerRan` says whether a
 * job's handler ever started.
 *
 * `max_runs` counts starts (ADR 0008 §4): no more than `max_runs` fires start a handler, every start is
 * counted, and the schedule finishes. A fire that ends without starting (every attempt's worker
 * vanished before its count) is one of the fires its chain dispatched, so the schedule may finish with
 * fewer started runs, by at most the fires abandoned; a later change plans from the count and makes
 * such a fire up, so at most that many more fires may run to their end.
 */
export function cappedViolations(
  id: string,
  schedule: Schedule | undefined,
  ran: readonly Job[],
  handlerRan: (jobId: string) => boolean,
): string[] {
  const violations: string[] = [];
  const handlerStarts = ran.filter((job) => handlerRan(job.id)).length;
  const abandoned = ran.filter((job) => job.status === 'abandoned').length;
  const startedRuns = schedule?.startedRuns ?? 0;
  if (handlerStarts > CAPPED_MAX_RUNS) {
    violations.push(`${id}: ${handlerStarts} fires started a handler, max_runs ${CAPPED_MAX_RUNS}`);
  }
  if (startedRuns < handlerStarts || startedRuns > CAPPED_MAX_RUNS) {
    violations.push(`${id}: started runs ${startedRuns}, but ${handlerStarts} fires started a handler`);
  }
  if (ran.length < CAPPED_MAX_RUNS || ran.length > CAPPED_MAX_RUNS + abandoned) {
    violations.push(`${id}: ${ran.length} fires ran, max_runs ${CAPPED_MAX_RUNS} (${abandoned} abandoned)`);
  }
  if (!schedule || schedule.nextFireAt !== null || startedRuns + abandoned < CAPPED_MAX_RUNS) {
    violations.push(
      `${id}: not finished at max_runs ${CAPPED_MAX_RUNS} (runs ${schedule?.runs}, started ${schedule?.startedRuns}, ${abandoned} abandoned, next fire ${schedule?.nextFireAt})`,
    );
  }
  return violations;
}
