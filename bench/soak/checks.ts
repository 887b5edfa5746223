import type { DynamoDbStore } from '../../lib/adapters/dynamodb/dynamodb-store';
import type { Job } from '../../lib/core/model/job';
import type { JobTrace } from './job-trace';
import { SOAK_TASKS, type SoakTask } from './plan';
import type { ExecutionRecorder } from './recorder';

export interface SoakVerdict {
  expected: number;
  executed: number;
  missing: string[];
  /** Fires of changed schedules that came up late, after a pause or removal, and were cancelled by it. */
  cancelledByChange: number;
  twice: string[];
  /** Jobs whose handler started again after a completed execution, or whose same attempt started twice. */
  doubleStarts: string[];
  unexpected: string[];
  /** Per task: the most jobs seen running at once, and the limit. */
  concurrency: { task: string; max: number; limit: number | null }[];
  counters: Map<string, number>;
  /** Jobs still marked running or retrying in the store. */
  unfinished: number;
  /** Jobs that ran but are missing from their task's listing, or listed more than once (ADR 0001's fire log). */
  unlisted: string[];
  listedTwice: string[];
  queue: number;
  deadLetters: number;
  violations: string[];
}

/** Compares what ran with what the triggers define, and checks the limits, counters and queues. */
export async function checkSoak(input: {
  /** Fires that must have completed exactly once. */
  expected: ReadonlySet<string>;
  /** Fires that may have completed (at most once): those of changed schedules near their change. */
  allowed: ReadonlySet<string>;
  recorder: ExecutionRecorder;
  /** What the platform did with each job, for the history of a violation. */
  trace: JobTrace;
  store: DynamoDbStore;
  queueDepth: () => Promise<number>;
  dlqDepth: () => Promise<number>;
  /** The task of a job id (to say which tasks lost fires). */
  taskOf: (jobId: string) => string;
  /** What the changed schedules did wrong (see `checkChurn`). */
  churnViolations: readonly string[];
  /** The backlog task's line: waits with a slot free too long, woken jobs not claimed in time (see `checkBacklog`); each names its job first. */
  backlogViolations: readonly string[];
  /** The admin calls made to a job's schedule (churn), relative to its fire time, for a violation's history. */
  callsOf: (jobId: string) => string;
  /** Whether the fire `jobId`, which never ran, was cancelled by a pause or removal, as it should. */
  cancelledByChange: (jobId: string, job: Job | undefined) => boolean;
}): Promise<SoakVerdict> {
  const { expected, recorder, store } = input;
  const executions = recorder.executions;
  const missing: string[] = [];
  let cancelledByChange = 0;
  for (const id of [...expected].filter((jobId) => !executions.has(jobId))) {
    if (input.cancelledByChange(id, await store.getJob(id, Date.now()))) cancelledByChange += 1;
    else missing.push(id);
  }
  const twice = [...executions].filter(([, count]) => count > 1).map(([id]) => id);
  const doubleStarts = [...new Set([...recorder.startedAfterCompletion, ...recorder.attemptStartedTwice])];
  const unexpected = [...executions.keys()].filter((id) => !expected.has(id) && !input.allowed.has(id));
  const concurrency = (Object.keys(SOAK_TASKS) as SoakTask[]).map((task) => ({
    task,
    max: recorder.maxRunning.get(task) ?? 0,
    limit: SOAK_TASKS[task].maxRunningJobs ?? null,
  }));
  const counters = await store.runningCounts();
  let unfinished = 0;
  for (const task of Object.keys(SOAK_TASKS)) {
    for (const status of ['running', 'retrying'] as const) {
      unfinished += (await store.listJobs({ task, status }, { limit: 100 }, Date.now())).items.length;
    }
  }
  const { unlisted, listedTwice } = await checkTaskListings(store, executions.keys());
  const [queue, deadLetters] = await Promise.all([input.queueDepth(), input.dlqDepth()]);
  const violations: string[] = [];
  const sample = (ids: string[]) => ids.slice(0, 5).join(', ') + (ids.length > 5 ? ', …' : '');
  if (missing.length > 0) {
    const byTask = new Map<string, number>();
    for (const id of missing) byTask.set(input.taskOf(id), (byTask.get(input.taskOf(id)) ?? 0) + 1);
    const tasks = [...byTask].map(([task, count]) => `${task} ${count}`).join(', ');
    violations.push(`${missing.length} fire(s) never ran (${tasks}): ${sample(missing)}`);
    const shown = [...byTask.keys()].flatMap((task) =>
      missing.filter((id) => input.taskOf(id) === task).slice(0, 3),
    );
    for (const id of shown) violations.push(`  ${await historyOf(id, input.trace, store, input.callsOf)}`);
  }
  if (twice.length > 0) {
    violations.push(`${twice.length} fire(s) completed more than once: ${sample(twice)}`);
    for (const id of twice.slice(0, 3))
      violations.push(`  ${await historyOf(id, input.trace, store, input.callsOf)}`);
  }
  if (doubleStarts.length > 0) {
    violations.push(
      `${doubleStarts.length} job(s) started again after completing, or ran one attempt twice: ${sample(doubleStarts)}`,
    );
    for (const id of doubleStarts.slice(0, 3))
      violations.push(`  ${await historyOf(id, input.trace, store, input.callsOf)}`);
  }
  if (input.churnViolations.length > 0) {
    violations.push(
      `${input.churnViolations.length} start(s) ignored a schedule change: ${input.churnViolations.slice(0, 5).join('; ')}`,
    );
    // Each violation names its job first: show what happened to the first few, as for the others.
    const jobIds = [...new Set(input.churnViolations.map((violation) => violation.split(' ')[0] ?? ''))];
    for (const id of jobIds.slice(0, 3))
      violations.push(`  ${await historyOf(id, input.trace, store, input.callsOf)}`);
  }
  if (input.backlogViolations.length > 0) {
    violations.push(
      `${input.backlogViolations.length} liveness violation(s) in the backlog task's line (a slot free too long, a woken job not claimed): ${input.backlogViolations.slice(0, 5).join('; ')}${input.backlogViolations.length > 5 ? '; …' : ''}`,
    );
    const jobIds = [...new Set(input.backlogViolations.map((violation) => violation.split(' ')[0] ?? ''))];
    for (const id of jobIds.slice(0, 2))
      violations.push(`  ${await historyOf(id, input.trace, store, input.callsOf)}`);
  }
  if (unexpected.length > 0)
    violations.push(`${unexpected.length} job(s) ran for no fire: ${sample(unexpected)}`);
  for (const { task, max, limit } of concurrency) {
    if (limit !== null && max > limit)
      violations.push(`task '${task}' ran ${max} jobs at once (limit ${limit})`);
  }
  for (const [task, running] of counters) {
    if (running !== 0) violations.push(`counter of '${task}' is ${running}, not 0`);
  }
  if (unfinished > 0) violations.push(`${unfinished} job(s) still running or retrying in the store`);
  if (unlisted.length > 0)
    violations.push(
      `${unlisted.length} job(s) that ran are missing from their task's listing: ${sample(unlisted)}`,
    );
  if (listedTwice.length > 0)
    violations.push(`${listedTwice.length} job(s) listed more than once by task: ${sample(listedTwice)}`);
  if (queue > 0) violations.push(`${queue} message(s) left in the jobs queue`);
  if (deadLetters > 0) violations.push(`${deadLetters} message(s) in the DLQ`);
  return {
    expected: expected.size,
    executed: executions.size,
    missing,
    cancelledByChange,
    twice,
    doubleStarts,
    unexpected,
    concurrency,
    counters,
    unfinished,
    unlisted,
    listedTwice,
    queue,
    deadLetters,
    violations,
  };
}

/** What the handlers and the store saw of one job: for a violation's report. */
async function historyOf(
  jobId: string,
  trace: JobTrace,
  store: DynamoDbStore,
  callsOf: (jobId: string) => string,
): Promise<string> {
  const job = await store.getJob(jobId, Date.now());
  // From the fire time; a job added with add_job (no `@`) from its first traced event.
  const fire = jobId.includes('@') ? Number(jobId.slice(jobId.indexOf('@') + 1)) : trace.firstAt(jobId);
  const stored = job
    ? `${job.status}, attempt ${job.attempt}, ${job.result?.error?.type ?? job.result?.outcome ?? 'no result'}`
    : 'no record';
  const lines = trace.describe(jobId, fire).map((line) => `    ${line}`);
  const calls = callsOf(jobId);
  return [
    `${jobId}: stored ${stored}; what happened (from its fire time):`,
    ...(calls ? [`    schedule changes: ${calls}`] : []),
    ...lines,
  ].join('\n');
}

/**
 * Every job that ran is listed by its task exactly once, across pages: the fire log (written by ticks
 * that overlapped, crashed or were throttled) and the `jobs-by-task` index together (ADR 0001).
 */
async function checkTaskListings(
  store: DynamoDbStore,
  ran: Iterable<string>,
): Promise<{ unlisted: string[]; listedTwice: string[] }> {
  const listed = new Map<string, number>();
  for (const task of Object.keys(SOAK_TASKS)) {
    let cursor: string | undefined;
    do {
      const page = await store.listJobs({ task }, { limit: 500, cursor }, Date.now());
      for (const job of page.items) listed.set(job.id, (listed.get(job.id) ?? 0) + 1);
      cursor = page.cursor;
    } while (cursor);
  }
  const unlisted: string[] = [];
  // A job whose result expired (a task with a short result TTL) is left out of every read, as it should.
  for (const id of [...ran].filter((jobId) => !listed.has(jobId))) {
    if (await store.getJob(id, Date.now())) unlisted.push(id);
  }
  return { unlisted, listedTwice: [...listed].filter(([, count]) => count > 1).map(([id]) => id) };
}
