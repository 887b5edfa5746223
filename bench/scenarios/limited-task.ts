import type { Priority } from '../../lib/core/model/priority';
import type { JobMessage, JobQueue } from '../../lib/core/ports/job-queue';
import type { BenchDynamo } from '../support/dynamo';
import { sleep } from '../support/parallel';
import { startPollers, waitFor } from '../support/pollers';
import { benchRuntime } from '../support/runtime';
import type { BenchSqs } from '../support/sqs';

/** The ticks' periods the waiting line is measured with: as `npm start` runs them, and as in AWS. */
export const TICK_PERIODS = [1, 60] as const;

export interface LimitedTaskOptions {
  jobs: number;
  runMs: number;
  maxRunningJobs: number;
  workers: number;
  /** The ticks' period: 1 s as `npm start` runs them, 60 s as in AWS (a hand-off waits for no tick). */
  tickSeconds: number;
  log: (line: string) => void;
}

export interface LimitedTaskResult {
  options: Omit<LimitedTaskOptions, 'log'>;
  executed: number;
  duplicates: number;
  maxRunning: number;
  /** First start to last end. */
  wallMs: number;
  /** The least time the jobs can take: ceil(jobs / limit) runs one after another. */
  idealMs: number;
  /** Handler time over the slots' time (limit × wall): 100 % means no slot ever stood free. */
  slotUse: number;
  /** Median time from a run's end to the start of the next run that started after it (ms). */
  handOverMs: number;
  /** The longest of those: a slot free while jobs waited (all arrive at once). */
  longestHandOverMs: number;
}

export interface CriticalJobResult {
  waitingNormal: number;
  /**
   * Normal jobs woken from the line after the critical job was added that started before it (0: it
   * started next).
   */
  startedBefore: number;
  /** Normal jobs already woken (on their way to the slot) when it was added, that started before it. */
  alreadyWoken: number;
}

interface Run {
  id: string;
  start: number;
  end: number;
}

/** Runs the handler of a limited task, recording each run, how many ran at once and duplicates. */
function recordingTask(maxRunningJobs: number, runMs: number) {
  const runs: Run[] = [];
  const seen = new Set<string>();
  let running = 0;
  let maxRunning = 0;
  let duplicates = 0;
  const task = {
    maxRunningJobs,
    timeoutSeconds: Math.max(5, Math.ceil((runMs * 3) / 1000)),
    handler: async (_payload: unknown, { jobId }: { jobId: string }) => {
      if (seen.has(jobId)) duplicates += 1;
      seen.add(jobId);
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      const start = Date.now();
      await sleep(runMs);
      running -= 1;
      runs.push({ id: jobId, start, end: Date.now() });
    },
  };
  return { task, runs, stats: () => ({ maxRunning, duplicates }) };
}

/** A job added directly (no schedule) to `task` ('limited' unless given), due at `runAt`. */
export function directJob(
  id: string,
  runAt: number,
  { task = 'limited', priority }: { task?: string; priority?: Priority } = {},
): JobMessage {
  return {
    job: {
      id,
      task,
      payload: null,
      origin: 'direct',
      scheduleId: null,
      fireTime: null,
      runAt,
      startDeadline: null,
      ...(priority && { priority }),
    },
    attempt: 1,
    delaySeconds: 0,
  };
}

/**
 * A backlog on a task with `maxRunningJobs`: `jobs` jobs of `runMs` each arrive at once; the jobs that
 * find no slot wait in the task's line and are woken as slots come back. Reports the time from the
 * first start to the last end against the ideal, and slot use.
 */
export async function limitedTaskScenario(
  dynamo: BenchDynamo,
  sqs: BenchSqs,
  options: LimitedTaskOptions,
): Promise<LimitedTaskResult> {
  const recording = recordingTask(options.maxRunningJobs, options.runMs);
  const runtime = await benchRuntime(dynamo, sqs, { tasks: { limited: recording.task } });
  const pollers = startPollers({
    client: sqs.client,
    queueUrl: runtime.queue.queueUrl,
    queueArn: runtime.queue.queueArn,
    count: options.workers,
    handler: runtime.worker,
  });
  const ticks = tickEvery(runtime.tick, options.tickSeconds);
  try {
    const now = Date.now();
    await runtime.deps.queue.send(
      Array.from({ length: options.jobs }, (_, n) => directJob(`job-${n}`, now + n)),
    );
    const budgetMs = options.jobs * options.runMs * 4 + 30_000;
    await waitFor(() => recording.runs.length >= options.jobs, budgetMs);
  } finally {
    await Promise.all([pollers.stop(), ticks.stop()]);
  }
  const { runs } = recording;
  const wallMs = Math.max(...runs.map((run) => run.end)) - Math.min(...runs.map((run) => run.start));
  const busyMs = runs.reduce((sum, run) => sum + (run.end - run.start), 0);
  const result: LimitedTaskResult = {
    options: {
      jobs: options.jobs,
      runMs: options.runMs,
      maxRunningJobs: options.maxRunningJobs,
      workers: options.workers,
      tickSeconds: options.tickSeconds,
    },
    executed: new Set(runs.map((run) => run.id)).size,
    ...recording.stats(),
    wallMs,
    idealMs: Math.ceil(options.jobs / options.maxRunningJobs) * options.runMs,
    slotUse: busyMs / (options.maxRunningJobs * wallMs),
    handOverMs: percentile(handOvers(runs), 0.5),
    longestHandOverMs: percentile(handOvers(runs), 1),
  };
  options.log(
    `  ${result.executed}/${options.jobs} jobs × ${options.runMs} ms on maxRunningJobs ${options.maxRunningJobs}: ${(wallMs / 1000).toFixed(1)} s (ideal ${(result.idealMs / 1000).toFixed(0)} s), slot use ${(result.slotUse * 100).toFixed(0)} %, hand-over p50 ${result.handOverMs.toFixed(0)} ms, longest ${result.longestHandOverMs.toFixed(0)} ms (tick every ${options.tickSeconds} s), at most ${result.maxRunning} at once`,
  );
  return result;
}

/**
 * A critical job added behind `waitingNormal` waiting normal jobs of a task limited to 1: how many
 * of them start after it was added and before it (0: it started next).
 */
export async function criticalJobScenario(
  dynamo: BenchDynamo,
  sqs: BenchSqs,
  options: { waitingNormal: number; runMs: number; workers: number; log: (line: string) => void },
): Promise<CriticalJobResult> {
  const recording = recordingTask(1, options.runMs);
  const runtime = await benchRuntime(dynamo, sqs, { tasks: { limited: recording.task } });
  const sentAt = recordSends(runtime.deps.queue);
  const pollers = startPollers({
    client: sqs.client,
    queueUrl: runtime.queue.queueUrl,
    queueArn: runtime.queue.queueArn,
    count: options.workers,
    handler: runtime.worker,
  });
  let startedBefore = -1;
  let alreadyWoken = -1;
  try {
    const now = Date.now();
    await runtime.deps.queue.send(
      Array.from({ length: options.waitingNormal + 1 }, (_, n) => directJob(`normal-${n}`, now + n)),
    );
    await waitFor(
      async () => (await runtime.store.waitingCount('limited')) >= options.waitingNormal - 1,
      60_000,
    );
    const addedAt = Date.now();
    await runtime.deps.queue.send([directJob('critical', Date.now(), { priority: 'critical' })]);
    await waitFor(() => recording.runs.some((run) => run.id === 'critical'), 60_000);
    const critical = recording.runs.find((run) => run.id === 'critical');
    const passed = recording.runs.filter(
      (run) => run.id !== 'critical' && run.start > addedAt && run.start < (critical?.start ?? 0),
    );
    // A job woken before the critical one was added was on its way to the slot already.
    const wokenAfterAdd = (run: Run) => (sentAt.get(run.id) ?? 0) >= addedAt;
    startedBefore = passed.filter(wokenAfterAdd).length;
    alreadyWoken = passed.length - startedBefore;
  } finally {
    await pollers.stop();
  }
  options.log(
    `  a critical job added behind ${options.waitingNormal} waiting normal jobs: ${startedBefore} woken after it started before it (0: it started next); ${alreadyWoken} already on its way to the slot started first`,
  );
  return { waitingNormal: options.waitingNormal, startedBefore, alreadyWoken };
}

/** When each job's message was last sent (the waking of a waiting job sends it again). */
function recordSends(queue: JobQueue): Map<string, number> {
  const sentAt = new Map<string, number>();
  const send = queue.send.bind(queue);
  queue.send = (messages) => {
    const now = Date.now();
    for (const message of messages) sentAt.set(message.job.id, now);
    return send(messages);
  };
  return sentAt;
}

/** From each run's end to the next start after it (ms). */
function handOvers(runs: readonly Run[]): number[] {
  const starts = runs.map((run) => run.start).sort((a, b) => a - b);
  const gaps = runs.flatMap((run) => {
    const next = starts.find((start) => start >= run.end);
    return next === undefined ? [] : [next - run.end];
  });
  return gaps.sort((a, b) => a - b);
}

/** The value at `share` (0–1) of sorted `values`; 0 when empty. */
function percentile(values: readonly number[], share: number): number {
  return values[Math.min(values.length - 1, Math.floor(values.length * share))] ?? 0;
}

/** Runs `tick` every `seconds` until stopped (a stop does not wait out the period). */
export function tickEvery(tick: () => Promise<unknown>, seconds: number): { stop(): Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await tick().catch(() => undefined);
      const next = Date.now() + seconds * 1000;
      while (!stopped && Date.now() < next) await sleep(Math.min(200, next - Date.now()));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
