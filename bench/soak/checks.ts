import type { DynamoDbStore } from '../../lib/adapters/dynamodb/dynamodb-store';
import { SOAK_TASKS, type SoakTask } from './plan';
import type { ExecutionRecorder } from './recorder';

export interface SoakVerdict {
  expected: number;
  executed: number;
  missing: string[];
  twice: string[];
  unexpected: string[];
  /** Per task: the most jobs seen running at once, and the limit. */
  concurrency: { task: string; max: number; limit: number | null }[];
  counters: Map<string, number>;
  /** Jobs still marked running or retrying in the store. */
  unfinished: number;
  queue: number;
  deadLetters: number;
  violations: string[];
}

/** Compares what ran with what the triggers define, and checks the limits, counters and queues. */
export async function checkSoak(input: {
  expected: ReadonlySet<string>;
  recorder: ExecutionRecorder;
  store: DynamoDbStore;
  queueDepth: () => Promise<number>;
  dlqDepth: () => Promise<number>;
  /** The task of a job id (to say which tasks lost fires). */
  taskOf: (jobId: string) => string;
}): Promise<SoakVerdict> {
  const { expected, recorder, store } = input;
  const executions = recorder.executions;
  const missing = [...expected].filter((id) => !executions.has(id));
  const twice = [...executions].filter(([, count]) => count > 1).map(([id]) => id);
  const unexpected = [...executions.keys()].filter((id) => !expected.has(id));
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
  const [queue, deadLetters] = await Promise.all([input.queueDepth(), input.dlqDepth()]);
  const violations: string[] = [];
  const sample = (ids: string[]) => ids.slice(0, 5).join(', ') + (ids.length > 5 ? ', …' : '');
  if (missing.length > 0) {
    const byTask = new Map<string, number>();
    for (const id of missing) byTask.set(input.taskOf(id), (byTask.get(input.taskOf(id)) ?? 0) + 1);
    const tasks = [...byTask].map(([task, count]) => `${task} ${count}`).join(', ');
    violations.push(`${missing.length} fire(s) never ran (${tasks}): ${sample(missing)}`);
  }
  if (twice.length > 0) violations.push(`${twice.length} fire(s) ran more than once: ${sample(twice)}`);
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
  if (queue > 0) violations.push(`${queue} message(s) left in the jobs queue`);
  if (deadLetters > 0) violations.push(`${deadLetters} message(s) in the DLQ`);
  return {
    expected: expected.size,
    executed: executions.size,
    missing,
    twice,
    unexpected,
    concurrency,
    counters,
    unfinished,
    queue,
    deadLetters,
    violations,
  };
}
