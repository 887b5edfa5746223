import type { Job } from '../../lib/core/model/job';
import { isFinalStatus } from '../../lib/core/model/job';
import type { AdminHandler } from '../../lib/runtime/handlers/admin';
import type { JobContext } from '../../lib/runtime/tasks/define-task';
import { sleep } from '../support/parallel';
import { mostAtOnce } from './backlog-check';

/**
 * `cancel_job` of running jobs, through the soak's faults: a task of handlers that run 4–6.8 s (past
 * the worker's first check for a cancellation at 5 s, within the soak's 7 s of invocation), one in six
 * ignoring its signal, limited to 3 at once; a job added every second of the window, and asked to stop
 * at a random moment of its run (or just after it). Then: every such job ended, none started an attempt
 * after `cancel_job` answered that it asked the running attempt to stop, the limit held, and some runs
 * were stopped by their worker's check (else the checks prove nothing).
 */
export const STOPPABLE = { task: 'stoppable', maxRunningJobs: 3, everyMs: 1_000 } as const;

const PREFIX = 'stop-';
const LEAST_MS = 4_000;
const MOST_MS = 6_800;
const IGNORES_SIGNAL = 1 / 6;

export interface StoppablePayload {
  ms: number;
  ignoresSignal: boolean;
}

/** What the stoppable jobs did and were asked, as the soak saw it. */
export class StopRecord {
  readonly added: string[] = [];
  /** Per job: the attempt that ran when `cancel_job` answered that it asked it to stop. */
  readonly asked = new Map<string, number>();
  /** Per job: each handler start (attempt, when) and its end. */
  readonly runs = new Map<string, { attempt: number; from: number; to?: number }[]>();
}

/** The stoppable task's handler: works `ms`, honouring its signal unless the payload says not to. */
export function stoppableHandler(record: StopRecord) {
  return async (payload: StoppablePayload, context: JobContext) => {
    const run: { attempt: number; from: number; to?: number } = {
      attempt: context.attempt,
      from: Date.now(),
    };
    record.runs.set(context.jobId, [...(record.runs.get(context.jobId) ?? []), run]);
    try {
      await sleep(payload.ms, payload.ignoresSignal ? undefined : context.signal);
      if (!payload.ignoresSignal && context.signal.aborted) throw context.signal.reason;
      return { workedMs: payload.ms };
    } finally {
      run.to = Date.now();
    }
  };
}

/** Adds a job every `everyMs` of [startAt, endAt] and asks each to stop at a random moment of its run. */
export async function runStops(input: {
  admin: AdminHandler;
  record: StopRecord;
  startAt: number;
  endAt: number;
  log: (line: string) => void;
}): Promise<void> {
  const asking: Promise<void>[] = [];
  for (let n = 0, at = input.startAt; at <= input.endAt; n++, at += STOPPABLE.everyMs) {
    await sleep(Math.max(0, at - Date.now()));
    const jobId = `${PREFIX}${n}`;
    const payload: StoppablePayload = {
      ms: Math.round(LEAST_MS + Math.random() * (MOST_MS - LEAST_MS)),
      ignoresSignal: Math.random() < IGNORES_SIGNAL,
    };
    const added = await callUntilAnswered(input.admin, {
      action: 'add_job',
      task: STOPPABLE.task,
      job_id: jobId,
      payload,
      conflict_policy: 'do_nothing',
    });
    if (!added) {
      input.log(`stops: ${jobId} could not be added`);
      continue;
    }
    input.record.added.push(jobId);
    asking.push(askToStop(input, jobId, payload.ms));
  }
  await Promise.all(asking);
}

/** Waits for the job's run to start, then asks it to stop at a random moment up to 1.2 times its work. */
async function askToStop(
  input: { admin: AdminHandler; record: StopRecord },
  jobId: string,
  workMs: number,
): Promise<void> {
  const waitUntil = Date.now() + 60_000;
  while (!input.record.runs.has(jobId) && Date.now() < waitUntil) await sleep(100);
  await sleep(Math.random() * workMs * 1.2);
  const answer = await callUntilAnswered(input.admin, { action: 'cancel_job', job_id: jobId }, true);
  const job = answer?.job as { status?: string; attempt?: number } | undefined;
  if (job?.status === 'running' && job.attempt !== undefined) input.record.asked.set(jobId, job.attempt);
}

/**
 * Calls until the admin API answers; a refusal that names the job's state (not cancellable: it ended)
 * is an answer too when `refusalAnswers`. Undefined when no answer came or the call was refused.
 */
async function callUntilAnswered(
  admin: AdminHandler,
  request: Record<string, unknown>,
  refusalAnswers = false,
): Promise<Record<string, unknown> | undefined> {
  for (let tries = 1; tries <= 40; tries++) {
    const answer = await admin(request);
    if (answer.ok) return answer.result as Record<string, unknown>;
    if (refusalAnswers && answer.error.code === 'job_not_cancellable') return undefined;
    await sleep(250);
  }
  return undefined;
}

/** Whether every stoppable job has ended (the drain waits for it). */
export async function stopsEnded(record: StopRecord, readJob: (id: string) => Promise<Job | undefined>) {
  const jobs = await Promise.all(record.added.map(readJob));
  return jobs.every((job) => job !== undefined && isFinalStatus(job.status));
}

export interface StopsVerdict {
  violations: string[];
  summary: string;
}

/** The checks of the stoppable jobs, once drained. */
export async function checkStops(
  record: StopRecord,
  readJob: (id: string) => Promise<Job | undefined>,
): Promise<StopsVerdict> {
  const violations: string[] = [];
  const endings = new Map<string, number>();
  let stoppedByCheck = 0;
  for (const jobId of record.added) {
    const job = await readJob(jobId);
    const ending = job === undefined ? 'absent' : job.status;
    endings.set(ending, (endings.get(ending) ?? 0) + 1);
    if (!job || !isFinalStatus(job.status)) violations.push(`stops: ${jobId} never ended (${ending})`);
    if (job?.result?.error?.message.startsWith('cancel_job asked the running job')) stoppedByCheck += 1;
    const askedDuring = record.asked.get(jobId);
    const later = (record.runs.get(jobId) ?? []).filter(
      (run) => askedDuring !== undefined && run.attempt > askedDuring,
    );
    if (later.length > 0) {
      violations.push(
        `stops: ${jobId} started attempt ${later[0]?.attempt} after cancel_job asked it to stop while attempt ${askedDuring} ran`,
      );
    }
  }
  const most = mostAtOnce(
    [...record.runs.values()]
      .flat()
      .map((run): [number, number] => [run.from, run.to ?? Number.POSITIVE_INFINITY]),
  );
  if (most > STOPPABLE.maxRunningJobs) {
    violations.push(
      `stops: ${most} handlers of '${STOPPABLE.task}' ran at once (limit ${STOPPABLE.maxRunningJobs})`,
    );
  }
  if (record.asked.size > 0 && stoppedByCheck === 0) {
    violations.push('stops: no running job was stopped by its worker’s check for a cancellation');
  }
  const ended = [...endings].map(([status, count]) => `${count} ${status}`).join(', ');
  return {
    violations,
    summary: `${record.added.length} added, ${record.asked.size} asked to stop while running, ${stoppedByCheck} stopped by their worker's check; ended: ${ended}; at most ${most} running at once (limit ${STOPPABLE.maxRunningJobs})`,
  };
}
