import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { pollOnce } from '../../lib/adapters/sqs/event-source';
import type { JobRequest } from '../../lib/core/ports/job-store';
import { createTickHandler } from '../../lib/runtime/handlers/tick';
import type { TestQueue } from '../support/sqs';
import { useLocalServices, worker } from './real-runtime';
import { scheduleDefinition } from './support';

const local = useLocalServices();
const realRuntime = local.runtime;

/** Polls like Lambda's event source mapping until `done()` or the time runs out. */
async function pollUntil(
  queue: TestQueue,
  handler: ReturnType<typeof worker>,
  done: () => boolean,
  maxMs: number,
) {
  const until = Date.now() + maxMs;
  while (!done() && Date.now() < until) {
    await pollOnce({ client: local.sqs().client, queueUrl: queue.queueUrl, waitTimeSeconds: 1 }, (event) =>
      handler(event),
    );
  }
}

describe('runtime on DynamoDB Local and the SQS emulator', () => {
  it('runs each fire of a schedule once, within a second of its fire time', async () => {
    // Prepare: a schedule firing every second from 3 s ahead (room for a slow tick); a 6 s lookahead
    const { deps, store, queue } = await realRuntime({ lookaheadSeconds: 6 });
    const start = Math.ceil(Date.now() / 1000) * 1000 + 3000;
    await store.addSchedule({
      schedule: scheduleDefinition('every-second', {
        trigger: { type: 'interval', seconds: 1, start_at: new Date(start).toISOString() },
      }),
      nextFireAt: start,
      conflictPolicy: 'exception',
      now: Date.now(),
    });
    const lags = new Map<number, number[]>();
    const handler = worker(deps, {
      echo: {
        handler: (_payload, { fireTime }) => {
          const fire = fireTime?.getTime() ?? 0;
          lags.set(fire, [...(lags.get(fire) ?? []), Date.now() - fire]);
        },
      },
    });

    // Act
    const summary = await createTickHandler(() => deps)();
    await pollUntil(queue, handler, () => lags.size >= summary.jobsEnqueued, 8_000);

    // Assess
    expect(summary.jobsEnqueued).toBeGreaterThanOrEqual(2);
    expect(lags.size).toBe(summary.jobsEnqueued);
    for (const [, runs] of lags) {
      expect(runs).toHaveLength(1);
      expect(runs[0]).toBeGreaterThanOrEqual(0);
      expect(runs[0]).toBeLessThan(1_000);
    }
  });

  it('sends every fire, and runs each once, when two ticks race over the same due schedules without leases', async () => {
    // Prepare
    const { deps, store, queue } = await realRuntime({ acquireBatchSize: 5 });
    const now = Date.now();
    for (let index = 0; index < 20; index++) {
      await store.addSchedule({
        schedule: scheduleDefinition(`race-${index}`, {
          trigger: { type: 'interval', minutes: 10, start_at: new Date(now + 2_000).toISOString() },
        }),
        nextFireAt: now + 2_000,
        conflictPolicy: 'exception',
        now,
      });
    }

    // Act: both ticks may send a fire (same id); every message received is claimed
    const [a, b] = await Promise.all([createTickHandler(() => deps)(), createTickHandler(() => deps)()]);
    const jobs: JobRequest[] = [];
    const sent = a.jobsEnqueued + b.jobsEnqueued;
    for (const until = Date.now() + 30_000; jobs.length < sent && Date.now() < until; ) {
      const output = await local.sqs().client.send(
        new ReceiveMessageCommand({
          QueueUrl: queue.queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
          VisibilityTimeout: 300,
        }),
      );
      jobs.push(...(output.Messages ?? []).map((message) => JSON.parse(message.Body ?? '{}').job));
    }
    const claims = [];
    for (const [n, job] of jobs.entries()) {
      claims.push(await store.claimJob({ job, attempt: 1, owner: `w-${n}`, now, leaseUntil: now + 60_000 }));
    }

    // Assess
    expect(new Set(jobs.map((job) => job.id)).size).toBe(20);
    expect(jobs).toHaveLength(sent);
    expect(claims.filter((claim) => claim.status === 'claimed')).toHaveLength(20);
    expect(claims.filter((claim) => claim.status !== 'claimed')).toHaveLength(sent - 20);
    const { items } = await store.listSchedules({}, { limit: 50 });
    expect(items.every((schedule) => schedule.nextFireAt === now + 602_000)).toBe(true);
  });

  it('never runs more than maxRunningJobs at once across concurrent workers; the overflow comes back and runs', async () => {
    // Prepare: 6 jobs of a task limited to 2, each running 300 ms, and two pollers
    const { deps, queue } = await realRuntime();
    let running = 0;
    let maxRunning = 0;
    const finished = new Set<string>();
    const handler = worker(deps, {
      limited: {
        maxRunningJobs: 2,
        handler: async (_payload, { jobId }) => {
          running += 1;
          maxRunning = Math.max(maxRunning, running);
          await new Promise((resolve) => setTimeout(resolve, 300));
          running -= 1;
          finished.add(jobId);
        },
      },
    });
    const now = Date.now();
    await deps.queue.send(
      Array.from({ length: 6 }, (_, index) => ({
        job: {
          id: `limited-${index}`,
          task: 'limited',
          payload: null,
          origin: 'direct' as const,
          scheduleId: null,
          fireTime: null,
          runAt: now,
          startDeadline: null,
        },
        attempt: 1,
        delaySeconds: 0,
      })),
    );

    // Act
    await Promise.all([1, 2].map(() => pollUntil(queue, handler, () => finished.size === 6, 25_000)));

    // Assess
    expect(finished.size).toBe(6);
    expect(maxRunning).toBeLessThanOrEqual(2);
    expect(await deps.jobStore.runningCounts()).toEqual(new Map([['limited', 0]]));
  });
});
