import type { BenchDynamo } from '../support/dynamo';
import { sleep } from '../support/parallel';
import { startPollers, waitFor } from '../support/pollers';
import { benchRuntime } from '../support/runtime';
import type { BenchSqs } from '../support/sqs';
import { directJob, tickEvery } from './limited-task';

export interface RateLimitOptions {
  /** The backlog: jobs sent at once. */
  jobs: number;
  max: number;
  perSeconds: number;
  /** How long each handler runs. */
  runMs: number;
  workers: number;
  log: (line: string) => void;
}

export interface RateLimitResult {
  options: Omit<RateLimitOptions, 'log'>;
  executed: number;
  duplicates: number;
  /** The most handler starts inside any window of `perSeconds` (measured in the handlers). */
  maxInAnyWindow: number;
  /** Starts per second from the first start to the last. */
  achievedPerSecond: number;
  /** First start to last start (ms). */
  spanMs: number;
}

/**
 * A backlog on a task with `rateLimit`: `jobs` jobs arrive at once; the worker pollers and a tick every
 * second run them. Reports the most starts in any `perSeconds` window, measured inside the handlers,
 * and the rate achieved against the limit.
 */
export async function rateLimitScenario(
  dynamo: BenchDynamo,
  sqs: BenchSqs,
  options: RateLimitOptions,
): Promise<RateLimitResult> {
  const starts = new Map<string, number[]>();
  const task = {
    rateLimit: { max: options.max, perSeconds: options.perSeconds },
    handler: async (_payload: unknown, { jobId }: { jobId: string }) => {
      starts.set(jobId, [...(starts.get(jobId) ?? []), Date.now()]);
      await sleep(options.runMs);
    },
  };
  const runtime = await benchRuntime(dynamo, sqs, { tasks: { limited: task } });
  const pollers = startPollers({
    client: sqs.client,
    queueUrl: runtime.queue.queueUrl,
    queueArn: runtime.queue.queueArn,
    count: options.workers,
    handler: runtime.worker,
  });
  const ticks = tickEvery(runtime.tick, 1);
  try {
    const now = Date.now();
    const messages = Array.from({ length: options.jobs }, (_, n) => directJob(`job-${n}`, now + n));
    for (let from = 0; from < messages.length; from += 100) {
      await runtime.deps.queue.send(messages.slice(from, from + 100));
    }
    const idealMs = (options.jobs / options.max) * options.perSeconds * 1000;
    await waitFor(() => starts.size >= options.jobs, idealMs * 3 + 60_000);
  } finally {
    await Promise.all([pollers.stop(), ticks.stop()]);
  }
  const all = [...starts.values()].flat().sort((a, b) => a - b);
  const spanMs = (all.at(-1) ?? 0) - (all[0] ?? 0);
  const result: RateLimitResult = {
    options: {
      jobs: options.jobs,
      max: options.max,
      perSeconds: options.perSeconds,
      runMs: options.runMs,
      workers: options.workers,
    },
    executed: starts.size,
    duplicates: all.length - starts.size,
    maxInAnyWindow: maxInWindow(all, options.perSeconds * 1000),
    achievedPerSecond: spanMs > 0 ? ((all.length - 1) * 1000) / spanMs : 0,
    spanMs,
  };
  const limitPerSecond = options.max / options.perSeconds;
  options.log(
    `  ${result.executed}/${options.jobs} jobs at rateLimit ${options.max} per ${options.perSeconds} s: at most ${result.maxInAnyWindow} starts in any ${options.perSeconds} s (in handlers), ${result.achievedPerSecond.toFixed(2)} starts/s over ${(spanMs / 1000).toFixed(1)} s (${((result.achievedPerSecond / limitPerSecond) * 100).toFixed(0)} % of the limit), ${result.duplicates} ran twice`,
  );
  return result;
}

/** The most of the sorted `times` inside any window of `windowMs` (each window opening at one of them). */
export function maxInWindow(times: readonly number[], windowMs: number): number {
  let most = 0;
  let first = 0;
  for (const [last, time] of times.entries()) {
    while ((times[first] ?? time) <= time - windowMs) first += 1;
    most = Math.max(most, last - first + 1);
  }
  return most;
}
