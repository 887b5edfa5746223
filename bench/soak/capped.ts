import type { DynamoDbStore } from '../../lib/adapters/dynamodb/dynamodb-store';
import { CHANGE_SETTLE_MS, CLOCK_SKEW_MS } from '../../lib/core/planning/fires-sent-ahead';
import type { AdminHandler } from '../../lib/runtime/handlers/admin';
import { sleep } from '../support/parallel';
import { callUntilAnswered } from './churn';
import type { JobTrace } from './job-trace';
import { soakPayload } from './plan';
import type { ExecutionRecorder } from './recorder';

/**
 * Schedules with `max_runs`, changed while the fires they sent ahead wait in the queue: a pause then a
 * resume, a pause then a replay, a new trigger, a replace. Each change takes the fires it cancels back
 * out of `runs` (ADR 0004), so each schedule must finish at `max_runs`, never run more fires, and run
 * fewer only by fires a change cancelled while they stayed counted: due before the change's settle
 * margin (`CHANGE_SETTLE_MS` after the call began, or the clock skew after it returned if later).
 */
const MAX_RUNS = 20;
const CHANGE_AT_MS = 5_000;
const SECOND_CHANGE_AT_MS = 8_000;

type CappedChange = 'pause' | 'resume' | 'replay' | 'trigger' | 'replace';

const SCRIPTS: readonly (readonly { kind: CappedChange; atMs: number }[])[] = [
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

export interface CappedRun {
  ids: string[];
  firstFire: number;
  /** Per schedule: the latest fire time a change of it may have cancelled while it stayed counted. */
  countedCutoff: Map<string, number>;
  changes: number;
  /** Per schedule: each change made, as `kind +calledAt…+returnedAt` (ms from the first fire). */
  calls: Map<string, string[]>;
}

function addRequest(id: string, firstFire: number, seconds: number, conflictPolicy: string) {
  return {
    action: 'add_schedule',
    id,
    task: 'free',
    trigger: { type: 'interval', seconds, start_at: new Date(firstFire).toISOString() },
    payload: soakPayload({ id, payloadBytes: 60 }, 0),
    max_runs: MAX_RUNS,
    keep_finished: true,
    coalesce: 'all',
    misfire_grace_seconds: 3_600,
    conflict_policy: conflictPolicy,
  };
}

/** Adds the capped schedules (every second from `firstFire`), then makes their changes as the window runs. */
export async function runCapped(
  admin: AdminHandler,
  firstFire: number,
  log: (line: string) => void,
): Promise<CappedRun> {
  const ids = SCRIPTS.map((_, n) => `capped-${n}`);
  for (const id of ids) await callUntilAnswered(admin, addRequest(id, firstFire, 1, 'exception'), log);
  const run: CappedRun = { ids, firstFire, countedCutoff: new Map(), changes: 0, calls: new Map() };
  await Promise.all(
    SCRIPTS.map(async (script, n) => {
      const id = ids[n] as string;
      for (const step of script) {
        await sleep(Math.max(0, firstFire + step.atMs - Date.now()));
        const call = await callUntilAnswered(admin, changeRequest(step.kind, id, firstFire), log);
        // Its last try began by its return: a cutoff no earlier than the change's own, so the check never
        // blames a correct run (a give-back counts up to the return plus the skew, less than the margin).
        const cutoff = call.returnedAt + Math.max(CHANGE_SETTLE_MS, CLOCK_SKEW_MS);
        run.countedCutoff.set(id, Math.max(run.countedCutoff.get(id) ?? 0, cutoff));
        run.changes += 1;
        const calls = run.calls.get(id) ?? [];
        calls.push(`${step.kind} +${call.calledAt - firstFire}…+${call.returnedAt - firstFire} ms`);
        run.calls.set(id, calls);
      }
    }),
  );
  return run;
}

function changeRequest(kind: CappedChange, id: string, firstFire: number): Record<string, unknown> {
  if (kind === 'pause') return { action: 'pause_schedule', id };
  if (kind === 'resume') return { action: 'resume_schedule', id };
  if (kind === 'replay') return { action: 'resume_schedule', id, replay_missed: true };
  if (kind === 'trigger') {
    const trigger = { type: 'interval', seconds: 2, start_at: new Date(firstFire).toISOString() };
    return { action: 'update_schedule', id, trigger };
  }
  return addRequest(id, firstFire, 1, 'replace');
}

/** Every job id a capped schedule may run (each second from its first fire until `until`). */
export function cappedFireIds(run: CappedRun, until: number): Set<string> {
  const ids = new Set<string>();
  for (const id of run.ids) {
    for (let fire = run.firstFire; fire <= until; fire += 1_000) ids.add(`${id}@${fire}`);
  }
  return ids;
}

/** Whether every capped schedule has finished (it dispatched its last fire). */
export async function cappedFinished(store: DynamoDbStore, run: CappedRun): Promise<boolean> {
  const schedules = await Promise.all(run.ids.map((id) => store.getSchedule(id)));
  return schedules.every(
    (schedule) => schedule !== undefined && !schedule.paused && schedule.nextFireAt === null,
  );
}

/**
 * What the capped schedules did wrong: more fires than `max_runs`, not finished at `max_runs`, or fewer
 * fires run than `max_runs` less those a change cancelled while they stayed counted (a cancelled fire due
 * by the schedule's latest cutoff: an over-estimate, so this never blames a correct run).
 */
export async function checkCapped(
  store: DynamoDbStore,
  recorder: ExecutionRecorder,
  run: CappedRun,
  until: number,
  trace: JobTrace,
): Promise<{ violations: string[]; summary: string }> {
  const violations: string[] = [];
  const ran: string[] = [];
  for (const id of run.ids) {
    const fires = [...cappedFireIds({ ...run, ids: [id] }, until)];
    const completed = fires.filter((jobId) => recorder.executions.has(jobId)).length;
    const schedule = await store.getSchedule(id);
    if (completed > MAX_RUNS) violations.push(`${id}: ${completed} fires ran, max_runs ${MAX_RUNS}`);
    if (!schedule || schedule.nextFireAt !== null || schedule.runs !== MAX_RUNS) {
      violations.push(
        `${id}: not finished at max_runs ${MAX_RUNS} (runs ${schedule?.runs}, next fire ${schedule?.nextFireAt})`,
      );
    }
    const cutoff = run.countedCutoff.get(id) ?? 0;
    let cancelledCounted = 0;
    for (const jobId of fires) {
      if (Number(jobId.slice(jobId.indexOf('@') + 1)) > cutoff) break;
      if ((await store.getJob(jobId, Date.now()))?.status === 'cancelled') cancelledCounted += 1;
    }
    const early = completed + cancelledCounted < MAX_RUNS;
    if (early) violations.push(...(await describeFires(store, recorder, run, id, fires, schedule, trace)));
    ran.push(`${completed}${cancelledCounted > 0 ? ` (+${cancelledCounted} cancelled)` : ''}`);
    if (early) {
      violations.push(
        `${id}: finished early: ${completed} fires ran and ${cancelledCounted} were cancelled while counted, max_runs ${MAX_RUNS}`,
      );
    }
  }
  const summary = `schedules with max_runs ${MAX_RUNS} changed while their fires waited (pause/resume, pause/replay, new trigger, replace): ${run.changes} changes, fires run ${ran.join(' / ')}`;
  return { violations, summary };
}

/** What became of each fire of a schedule that finished early, to find which fires it counted but never ran. */
async function describeFires(
  store: DynamoDbStore,
  recorder: ExecutionRecorder,
  run: CappedRun,
  id: string,
  fires: string[],
  schedule: Awaited<ReturnType<DynamoDbStore['getSchedule']>>,
  trace: JobTrace,
): Promise<string[]> {
  const lines = [
    `${id}: changes ${(run.calls.get(id) ?? []).join(', ')}; counted cutoff +${(run.countedCutoff.get(id) ?? 0) - run.firstFire} ms; runs ${schedule?.runs}, last fire +${(schedule?.lastFireAt ?? run.firstFire) - run.firstFire} ms`,
  ];
  for (const jobId of fires) {
    const fire = Number(jobId.slice(jobId.indexOf('@') + 1));
    if (schedule?.lastFireAt != null && fire > schedule.lastFireAt) break;
    const job = await store.getJob(jobId, Date.now());
    const outcome = recorder.executions.has(jobId) ? 'ran' : job ? job.status : 'no job';
    lines.push(
      `  +${fire - run.firstFire} ms: ${outcome}${job?.result?.error ? ` (${job.result.error.type})` : ''}`,
    );
    if (outcome !== 'ran') lines.push(...trace.describe(jobId, fire).map((line) => `      ${line}`));
  }
  return lines;
}
