import type { AdminHandler } from '../../lib/runtime/handlers/admin';
import { sleep } from '../support/parallel';
import type { JobTrace } from './job-trace';
import { fireJobIds, SOAK_TASKS, type SoakSchedule, soakPayload } from './plan';
import type { ExecutionRecorder, StartRecord } from './recorder';

export type ChurnKind = 'pause' | 'resume' | 'update' | 'remove';

/** One admin call of the soak: when it was first made, when its (successful) answer came, and the payload revision. */
export interface ChurnCall {
  kind: ChurnKind;
  calledAt: number;
  returnedAt: number;
  rev: number;
}

/** At least this long before a change, a fire may still be waiting (crash, lease expiry): the change may cancel it. */
const MIN_IN_FLIGHT_MARGIN_MS = 20_000;

/**
 * How late the fires of the schedules nobody changed (of tasks without a limit) first started in this run (ms after their fire
 * time, the largest): a fire of a changed schedule due that long before a pause or removal may not have
 * started yet when it came (a late tick, a crashed worker's lease, throttling), and is then cancelled by it.
 */
export function maxLatenessMs(schedules: readonly SoakSchedule[], recorder: ExecutionRecorder): number {
  let latest = 0;
  // Only tasks without a limit, like the changed schedules' task: a limited task's fires also wait for slots.
  const unlimited = schedules.filter(
    (candidate) => !candidate.churn && SOAK_TASKS[candidate.task].maxRunningJobs === undefined,
  );
  for (const schedule of unlimited) {
    const seen = new Set<string>();
    for (const start of recorder.starts.get(schedule.id) ?? []) {
      if (seen.has(start.jobId)) continue;
      seen.add(start.jobId);
      const fireTime = Number(start.jobId.slice(start.jobId.indexOf('@') + 1));
      latest = Math.max(latest, start.at - fireTime);
    }
  }
  return latest;
}

/** What the soak does to the `index`th churn schedule, at which offset (ms) into the window. */
function scriptOf(
  index: number,
  windowMs: number,
  random: () => number,
): { kind: ChurnKind; atMs: number }[] {
  const first = windowMs * (0.25 + 0.15 * random());
  const gap = 2_000 + random() * 4_000; // inside the lookahead: fires of the window were dispatched already
  switch (index % 5) {
    case 0:
      return [
        { kind: 'pause', atMs: first },
        { kind: 'resume', atMs: first + gap },
      ];
    case 1:
      return [
        { kind: 'update', atMs: first },
        { kind: 'update', atMs: first + gap },
      ];
    case 2:
      return [{ kind: 'remove', atMs: first }];
    case 3:
      return [
        { kind: 'pause', atMs: first },
        { kind: 'resume', atMs: first + 2 * gap },
        { kind: 'update', atMs: first + 2 * gap + 1_500 },
      ];
    default:
      // Just before the schedule ends: its last fires were sent under the old payload, are sent again
      // under the new one by their check, and one delayed by a crash comes after the schedule finished
      // and was cleaned up (ADR 0004: judged against the removed schedule, it still runs, once).
      return [{ kind: 'update', atMs: windowMs - gap }];
  }
}

/**
 * Changes the churn schedules through the admin API while the soak runs (pause → resume, two payload
 * updates, remove, pause → resume → update, an update just before the end), retrying a call that failed
 * (throttling bursts) as a user would.
 */
export async function runChurn(input: {
  admin: AdminHandler;
  schedules: readonly SoakSchedule[];
  windowStartAt: number;
  windowMs: number;
  random: () => number;
  log: (line: string) => void;
}): Promise<Map<string, ChurnCall[]>> {
  const calls = new Map<string, ChurnCall[]>();
  const churned = input.schedules.filter((schedule) => schedule.churn);
  await Promise.all(
    churned.map(async (schedule, index) => {
      const made: ChurnCall[] = [];
      calls.set(schedule.id, made);
      let rev = 0;
      for (const step of scriptOf(index, input.windowMs, input.random)) {
        await sleep(Math.max(0, input.windowStartAt + step.atMs - Date.now()));
        if (step.kind === 'update') rev += 1;
        const request = requestOf(step.kind, schedule, rev);
        made.push({ kind: step.kind, rev, ...(await callUntilAnswered(input.admin, request, input.log)) });
      }
    }),
  );
  return calls;
}

function requestOf(kind: ChurnKind, schedule: SoakSchedule, rev: number): Record<string, unknown> {
  if (kind === 'update')
    return { action: 'update_schedule', id: schedule.id, payload: soakPayload(schedule, rev) };
  return { action: `${kind}_schedule`, id: schedule.id };
}

export async function callUntilAnswered(
  admin: AdminHandler,
  request: Record<string, unknown>,
  log: (line: string) => void,
): Promise<{ calledAt: number; returnedAt: number }> {
  const calledAt = Date.now();
  for (let tries = 1; ; tries++) {
    const answer = await admin(request);
    const gone =
      !answer.ok && answer.error.code === 'schedule_not_found' && request.action === 'remove_schedule';
    if (answer.ok || gone) return { calledAt, returnedAt: Date.now() };
    if (tries >= 40)
      throw new Error(`${String(request.action)} ${String(request.id)}: ${answer.error.message}`);
    if (tries === 1)
      log(`churn: ${String(request.action)} ${String(request.id)} failed (${answer.error.code}); retrying`);
    await sleep(250);
  }
}

export interface ChurnVerdict {
  /** Fires of churn schedules that must have run exactly once. */
  mustRun: Set<string>;
  /** Fires that may have run (at most once): due shortly before a change, or while a call was under way. */
  mayRun: Set<string>;
  violations: string[];
  calls: Record<ChurnKind, number>;
  /** Fires due this long before a change count as possibly still on their way when it came. */
  inFlightMarginMs: number;
}

/**
 * What the churn schedules must have done: no fire of a paused or removed schedule starts (for the first
 * time) after the call returned (until a resume is called), no fire first started after an update
 * returned runs the old payload, and every fire away from a change ran exactly once (the caller checks
 * that, with `mustRun`). A fire starts when its check reads the schedule, before its claim (ADR 0002:
 * the job's `started_at`; a handler may begin a few ms after a call that returned between the read and
 * the handler), and a takeover continues the run it takes over.
 */
export function checkChurn(
  schedules: readonly SoakSchedule[],
  calls: ReadonlyMap<string, readonly ChurnCall[]>,
  recorder: ExecutionRecorder,
  trace: JobTrace,
): ChurnVerdict {
  const inFlightMarginMs = Math.max(MIN_IN_FLIGHT_MARGIN_MS, maxLatenessMs(schedules, recorder));
  const verdict: ChurnVerdict = {
    mustRun: new Set(),
    mayRun: new Set(),
    violations: [],
    calls: { pause: 0, resume: 0, update: 0, remove: 0 },
    inFlightMarginMs,
  };
  for (const schedule of schedules.filter((candidate) => candidate.churn)) {
    const made = calls.get(schedule.id) ?? [];
    for (const call of made) verdict.calls[call.kind] += 1;
    const inactive = inactivePeriods(made);
    for (const { id, fireTime } of fireJobIds(schedule)) {
      const nearChange = made.some(
        (call) =>
          (call.kind !== 'resume' &&
            fireTime >= call.calledAt - inFlightMarginMs &&
            fireTime < call.returnedAt) ||
          (call.kind === 'resume' && fireTime >= call.calledAt && fireTime < call.returnedAt),
      );
      const off = inactive.some(([from, to]) => fireTime >= from && fireTime < to);
      (nearChange || off ? verdict.mayRun : verdict.mustRun).add(id);
    }
    // A fire's first start is what a change governs: the retries of a fire that started before the
    // change continue as that job (with its payload), as ADR 0002 says.
    const firstStarts = new Map<string, StartRecord>();
    for (const start of recorder.starts.get(schedule.id) ?? []) {
      if (!firstStarts.has(start.jobId)) firstStarts.set(start.jobId, start);
    }
    for (const start of firstStarts.values()) {
      const startedAt = trace.claimOfRun(start.jobId, start.attempt, start.at) ?? start.at;
      const stopped = made.find(
        (call, index) =>
          (call.kind === 'pause' || call.kind === 'remove') &&
          call.returnedAt < startedAt &&
          !made.slice(index + 1).some((later) => later.kind === 'resume' && later.calledAt <= startedAt),
      );
      if (stopped) {
        verdict.violations.push(
          `${start.jobId} started ${startedAt - stopped.returnedAt} ms after ${stopped.kind}_schedule returned`,
        );
      }
      const update = made.findLast((call) => call.kind === 'update' && call.returnedAt < startedAt);
      if (update && start.rev < update.rev) {
        verdict.violations.push(
          `${start.jobId} ran payload revision ${start.rev} ${startedAt - update.returnedAt} ms after the update to revision ${update.rev} returned`,
        );
      }
    }
  }
  return verdict;
}

/**
 * Whether a fire that never ran was cancelled, as it should be, by a pause or removal made before the
 * worker checked it: a fire delayed by faults (a worker crash and its lease, throttling) can come up
 * after a change made long after its fire time. After a pause and a resume it is `ScheduleChanged`: a
 * resume skips the fire times before it unless asked to replay them (ADR 0002); a fire cancelled by a
 * payload update is replaced (and its replacement runs), so it never counts here.
 */
export function cancelledByStop(
  calls: readonly ChurnCall[],
  job:
    | {
        status: string;
        finishedAt: number | null;
        result: { error?: { type: string; message: string } } | null;
      }
    | undefined,
): boolean {
  const error = job?.result?.error;
  if (job?.status !== 'cancelled' || job.finishedAt === null || !error) return false;
  const skippedByResume = error.type === 'ScheduleChanged' && error.message.includes('does not fire then');
  if (!skippedByResume && error.type !== 'SchedulePaused' && error.type !== 'ScheduleRemoved') return false;
  const finishedAt = job.finishedAt;
  return calls.some(
    (call) => (call.kind === 'pause' || call.kind === 'remove') && call.calledAt <= finishedAt,
  );
}

/** [from, to) periods in which the schedule is paused or removed (from the call that stopped it to the resume's answer). */
function inactivePeriods(calls: readonly ChurnCall[]): [number, number][] {
  const periods: [number, number][] = [];
  let stoppedAt: number | undefined;
  for (const call of calls) {
    if ((call.kind === 'pause' || call.kind === 'remove') && stoppedAt === undefined)
      stoppedAt = call.calledAt;
    if (call.kind === 'resume' && stoppedAt !== undefined) {
      periods.push([stoppedAt, call.returnedAt]);
      stoppedAt = undefined;
    }
  }
  if (stoppedAt !== undefined) periods.push([stoppedAt, Number.POSITIVE_INFINITY]);
  return periods;
}
