import type { DynamoDbStore } from '../../lib/adapters/dynamodb/dynamodb-store';
import type { AdminHandler } from '../../lib/runtime/handlers/admin';
import { CAPPED_MAX_RUNS, CAPPED_SCRIPTS, cappedAddRequest, cappedChangeRequest } from '../../sim/capped';
import { sleep } from '../support/parallel';
import { callUntilAnswered } from './churn';
import type { JobTrace } from './job-trace';
import { soakPayload } from './plan';
import type { ExecutionRecorder } from './recorder';

export interface CappedRun {
  ids: string[];
  firstFire: number;
  changes: number;
  /** Per schedule: each change made, as `kind +calledAt…+returnedAt` (ms from the first fire). */
  calls: Map<string, string[]>;
}

const cappedPayload = (id: string) => soakPayload({ id, payloadBytes: 60 }, 0);

/**
 * Adds the capped schedules of `sim/capped.ts` (every second from `firstFire`), then makes their changes
 * as the window runs, on the real store: each must run exactly `max_runs` fires.
 */
export async function runCapped(
  admin: AdminHandler,
  firstFire: number,
  log: (line: string) => void,
): Promise<CappedRun> {
  const ids = CAPPED_SCRIPTS.map((_, n) => `capped-${n}`);
  for (const id of ids)
    await callUntilAnswered(
      admin,
      cappedAddRequest(id, 'free', cappedPayload(id), firstFire, 'exception'),
      log,
    );
  const run: CappedRun = { ids, firstFire, changes: 0, calls: new Map() };
  await Promise.all(
    CAPPED_SCRIPTS.map(async (script, n) => {
      const id = ids[n] as string;
      for (const step of script) {
        await sleep(Math.max(0, firstFire + step.atMs - Date.now()));
        const call = await callUntilAnswered(
          admin,
          cappedChangeRequest(step.kind, id, 'free', cappedPayload(id), firstFire),
          log,
        );
        run.changes += 1;
        const calls = run.calls.get(id) ?? [];
        calls.push(`${step.kind} +${call.calledAt - firstFire}…+${call.returnedAt - firstFire} ms`);
        run.calls.set(id, calls);
      }
    }),
  );
  return run;
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
 * What the capped schedules did wrong: more fires than `max_runs`, fewer (each fire a chain dispatched
 * starts or is cancelled before it counts, and a new chain plans the rest), or not finished.
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
    ran.push(String(completed));
    if (completed > CAPPED_MAX_RUNS)
      violations.push(`${id}: ${completed} fires ran, max_runs ${CAPPED_MAX_RUNS}`);
    if (!schedule || schedule.nextFireAt !== null || schedule.startedRuns !== CAPPED_MAX_RUNS) {
      violations.push(
        `${id}: not finished at max_runs ${CAPPED_MAX_RUNS} (started runs ${schedule?.startedRuns}, next fire ${schedule?.nextFireAt})`,
      );
    }
    if (completed < CAPPED_MAX_RUNS) {
      violations.push(...(await describeFires(store, recorder, run, id, fires, schedule, trace)));
      violations.push(`${id}: finished early: ${completed} fires ran, max_runs ${CAPPED_MAX_RUNS}`);
    }
  }
  const summary = `schedules with max_runs ${CAPPED_MAX_RUNS} changed while their fires waited (pause/resume, pause/replay, new trigger, replace): ${run.changes} changes, fires run ${ran.join(' / ')}`;
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
    `${id}: changes ${(run.calls.get(id) ?? []).join(', ')}; runs ${schedule?.runs}, started ${schedule?.startedRuns}, last fire +${(schedule?.lastFireAt ?? run.firstFire) - run.firstFire} ms`,
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
