import { describe, expect, it } from 'vitest';
import { pollOnce } from '../../lib/adapters/sqs/event-source';
import { SqsJobQueue } from '../../lib/adapters/sqs/sqs-job-queue';
import { createAdminHandler } from '../../lib/runtime/handlers/admin';
import { createTestQueue, type TestQueue } from '../support/sqs';
import { waitFor } from '../support/wait';
import {
  type AnyTaskOptions,
  type RealRuntime,
  taskRegistry,
  useLocalServices,
  worker,
} from './real-runtime';

const local = useLocalServices();

/** A runtime whose critical jobs go to a queue of their own, as the stack and `npm start` set it up. */
async function runtimeWithCriticalQueue(): Promise<RealRuntime & { critical: TestQueue }> {
  const sqs = local.sqs();
  const runtime = await local.runtime();
  const critical = await createTestQueue(sqs.client, { visibilityTimeoutSeconds: 5 });
  const queue = new SqsJobQueue({
    client: sqs.client,
    queueUrl: runtime.queue.queueUrl,
    criticalQueueUrl: critical.queueUrl,
  });
  runtime.deps = {
    ...runtime.deps,
    config: { ...runtime.deps.config, criticalQueueUrl: critical.queueUrl },
    queue,
  };
  return { ...runtime, critical };
}

/**
 * The worker's event sources as in AWS: `pollers` loops on the jobs queue and `criticalPollers` on the
 * critical queue, one message per batch, until `stop()`.
 */
function pollBoth(
  runtime: RealRuntime & { critical: TestQueue },
  tasks: Record<string, AnyTaskOptions>,
  pollers: number,
  criticalPollers: number,
) {
  const client = local.sqs().client;
  const handler = worker(runtime.deps, tasks);
  let running = true;
  const loop = (queue: TestQueue) => async () => {
    while (running) {
      await pollOnce(
        { client, queueUrl: queue.queueUrl, queueArn: queue.queueArn, batchSize: 1, waitTimeSeconds: 1 },
        handler,
      );
    }
  };
  const loops = [
    ...Array.from({ length: pollers }, loop(runtime.queue)),
    ...Array.from({ length: criticalPollers }, loop(runtime.critical)),
  ];
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** A promise and the function that settles it: handlers wait on it until the test lets them go. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

function addJob(runtime: RealRuntime, tasks: Record<string, AnyTaskOptions>, job: Record<string, unknown>) {
  const admin = createAdminHandler(() => runtime.deps, taskRegistry(tasks));
  return admin({ action: 'add_job', ...job });
}

describe('critical jobs on DynamoDB Local and the SQS emulator', () => {
  it('starts a critical job added behind 100 waiting normal jobs of a limited task next', async () => {
    // Prepare: the one slot held by a job that waits for the gate; 100 normal jobs join the line
    const runtime = await runtimeWithCriticalQueue();
    const release = gate();
    const starts: string[] = [];
    const tasks: Record<string, AnyTaskOptions> = {
      limited: {
        maxRunningJobs: 1,
        handler: async (_payload: unknown, { jobId }: { jobId: string }) => {
          starts.push(jobId);
          if (jobId === 'holder') await release.opened;
        },
      },
    };
    const background = pollBoth(runtime, tasks, 4, 1);
    try {
      await addJob(runtime, tasks, { task: 'limited', job_id: 'holder' });
      await waitFor(
        async () => starts,
        (started) => started.includes('holder'),
      );
      const normal = Array.from({ length: 100 }, (_, index) => ({
        job_id: `normal-${String(index).padStart(3, '0')}`,
      }));
      const admin = createAdminHandler(() => runtime.deps, taskRegistry(tasks));
      const answer = await admin({
        action: 'add_jobs',
        jobs: normal.map((job) => ({ task: 'limited', ...job })),
      });
      expect(answer.ok).toBe(true);
      const waiting = await waitFor(
        () => runtime.deps.jobStore.waitingCount('limited'),
        (count) => count === 100,
        60_000,
      );
      expect(waiting).toBe(100);

      // Act: a critical job comes behind them, then the slot comes back
      const added = await addJob(runtime, tasks, { task: 'limited', job_id: 'urgent', priority: 'critical' });
      expect(added.ok).toBe(true);
      await waitFor(
        () => runtime.deps.jobStore.waitingCount('limited'),
        (count) => count === 101,
      );
      release.open();
      await waitFor(
        async () => starts,
        (started) => started.length >= 3,
      );

      // Assess: the first start after the holder is the critical job
      expect(starts.slice(0, 2)).toEqual(['holder', 'urgent']);
    } finally {
      release.open();
      await background.stop();
    }
  }, 120_000);

  it('starts a critical job while every worker of the jobs queue is busy, before the normal jobs queued there', async () => {
    // Prepare: two pollers of the jobs queue, each held by a job that waits for the gate; three more wait in the queue
    const runtime = await runtimeWithCriticalQueue();
    const release = gate();
    const starts: string[] = [];
    const tasks: Record<string, AnyTaskOptions> = {
      busy: {
        handler: async (_payload: unknown, { jobId }: { jobId: string }) => {
          starts.push(jobId);
          if (jobId.startsWith('holder')) await release.opened;
        },
      },
    };
    const background = pollBoth(runtime, tasks, 2, 1);
    try {
      for (const id of ['holder-1', 'holder-2']) await addJob(runtime, tasks, { task: 'busy', job_id: id });
      await waitFor(
        async () => starts,
        (started) => started.length === 2,
      );
      const holders = [...starts].sort();
      expect(holders).toEqual(['holder-1', 'holder-2']);
      for (const id of ['queued-1', 'queued-2', 'queued-3']) {
        await addJob(runtime, tasks, { task: 'busy', job_id: id });
      }

      // Act
      await addJob(runtime, tasks, { task: 'busy', job_id: 'urgent', priority: 'critical' });
      const started = await waitFor(
        async () => starts,
        (list) => list.includes('urgent'),
      );

      // Assess: it ran while the jobs queue's workers were still held and its normal jobs still queued
      expect(started.slice(2)).toEqual(['urgent']);
    } finally {
      release.open();
      await background.stop();
    }
  }, 120_000);
});
