import { SqsJobQueue } from '../../lib/adapters/sqs/sqs-job-queue';
import type { BenchDynamo } from '../support/dynamo';
import { sleep } from '../support/parallel';
import { type Pollers, startPollers, waitFor } from '../support/pollers';
import { benchRuntime } from '../support/runtime';
import { type BenchSqs, createBenchQueue } from '../support/sqs';
import { directJob } from './limited-task';

export interface SaturatedWorkersOptions {
  /** Normal jobs queued behind the workers' batches when the critical job is added. */
  queuedNormal: number;
  runMs: number;
  /** Pollers of the jobs queue (each takes batches of 10, as Lambda's event source does). */
  workers: number;
  /** Pollers of the critical queue: its event source's own share. */
  criticalWorkers: number;
  log: (line: string) => void;
}

export interface SaturatedWorkersResult {
  /** With the queue for critical jobs: normal jobs that started after it was added and before it. */
  withCriticalQueue: number;
  /** The same with one queue (and as many pollers in all): where the critical job stood in it. */
  withOneQueue: number;
}

/**
 * Every worker busy (a task without `maxRunningJobs`, so no waiting line orders anything): the jobs
 * queue holds `queuedNormal` normal jobs when a critical job is added. Counts the normal jobs that
 * start before it, with the queue for critical jobs and with one queue for all.
 */
export async function saturatedWorkersScenario(
  dynamo: BenchDynamo,
  sqs: BenchSqs,
  options: SaturatedWorkersOptions,
): Promise<SaturatedWorkersResult> {
  const withCriticalQueue = await startedBeforeCritical(dynamo, sqs, options, true);
  const withOneQueue = await startedBeforeCritical(dynamo, sqs, options, false);
  options.log(
    `  workers saturated, ${options.queuedNormal} normal jobs queued: ${withCriticalQueue} of them started before a critical job added then with the critical queue (0: it started next), ${withOneQueue} with one queue`,
  );
  return { withCriticalQueue, withOneQueue };
}

async function startedBeforeCritical(
  dynamo: BenchDynamo,
  sqs: BenchSqs,
  options: SaturatedWorkersOptions,
  criticalQueue: boolean,
): Promise<number> {
  const starts = new Map<string, number>();
  const busy = {
    timeoutSeconds: Math.max(5, Math.ceil((options.runMs * 3) / 1000)),
    handler: async (_payload: unknown, { jobId }: { jobId: string }) => {
      starts.set(jobId, Date.now());
      await sleep(options.runMs);
    },
  };
  const runtime = await benchRuntime(dynamo, sqs, { tasks: { busy } });
  const critical = await createBenchQueue(sqs.client, { visibilityTimeoutSeconds: 30, maxReceiveCount: 500 });
  if (criticalQueue) {
    runtime.deps.config = { ...runtime.deps.config, criticalQueueUrl: critical.queueUrl };
    runtime.deps.queue = new SqsJobQueue({
      client: sqs.client,
      queueUrl: runtime.queue.queueUrl,
      criticalQueueUrl: critical.queueUrl,
    });
  }
  const poll = (queue: { queueUrl: string; queueArn: string }, count: number): Pollers =>
    startPollers({ client: sqs.client, ...queue, count, handler: runtime.worker });
  const pollers = criticalQueue
    ? [poll(runtime.queue, options.workers), poll(critical, options.criticalWorkers)]
    : [poll(runtime.queue, options.workers + options.criticalWorkers)];
  try {
    const now = Date.now();
    const inFlight = 10 * (options.workers + (criticalQueue ? 0 : options.criticalWorkers));
    await runtime.deps.queue.send(
      Array.from({ length: inFlight + options.queuedNormal }, (_, n) =>
        directJob(`normal-${n}`, now + n, { task: 'busy' }),
      ),
    );
    await waitFor(() => starts.size >= inFlight, 60_000);
    const addedAt = Date.now();
    await runtime.deps.queue.send([directJob('critical', addedAt, { task: 'busy', priority: 'critical' })]);
    await waitFor(() => starts.has('critical'), 120_000);
    const criticalStart = starts.get('critical') ?? Number.POSITIVE_INFINITY;
    return [...starts].filter(([id, start]) => id !== 'critical' && start > addedAt && start < criticalStart)
      .length;
  } finally {
    await Promise.all(pollers.map((running) => running.stop()));
  }
}
