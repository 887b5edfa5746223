import { describe, expect, it } from 'vitest';
import { pollOnce } from '../../lib/adapters/sqs/event-source';
import { createAdminApi } from '../../lib/runtime/admin';
import { adminDependencies } from '../../lib/runtime/handlers/admin';
import { createTickHandler } from '../../lib/runtime/handlers/tick';
import { messagesInQueue, type TestQueue } from '../support/sqs';
import { taskRegistry, useLocalServices, worker } from './real-runtime';

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
  it('runs each fire of a schedule once, never before its fire time', async () => {
    // Prepare: six fires, every second from 3 s ahead: add_schedule sends them itself (too soon for a tick)
    const { deps, queue } = await realRuntime();
    const lags = new Map<number, number[]>();
    const tasks = {
      echo: {
        handler: (_payload: unknown, { fireTime }: { fireTime: Date | null }) => {
          const fire = fireTime?.getTime() ?? 0;
          lags.set(fire, [...(lags.get(fire) ?? []), Date.now() - fire]);
        },
      },
    };
    const admin = createAdminApi(adminDependencies(deps, taskRegistry(tasks)));
    const start = Math.ceil(Date.now() / 1000) * 1000 + 3000;
    const trigger = {
      type: 'interval',
      seconds: 1,
      start_at: new Date(start).toISOString(),
      end_at: new Date(start + 5_000).toISOString(),
    };

    // Act
    const added = await admin({ action: 'add_schedule', id: 'every-second', task: 'echo', trigger });
    await pollUntil(queue, worker(deps, tasks), () => lags.size >= 6, 15_000);

    // Assess
    expect(added).toMatchObject({ ok: true, result: { dispatched_jobs: 6, schedule: { finished: true } } });
    expect([...lags.keys()].sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5].map((n) => start + n * 1000));
    for (const [, runs] of lags) {
      expect(runs).toHaveLength(1);
      expect(runs[0]).toBeGreaterThanOrEqual(0);
    }
  });

  it('sends every fire once when two ticks run at once over the same due notes', async () => {
    // Prepare: 20 schedules, each firing every 20 minutes from 15 minutes ahead: their notes are read
    // 14 minutes before the fire. The ticks run on a clock 90 s ahead, where those notes are due.
    const { deps, queue } = await realRuntime();
    const admin = createAdminApi(adminDependencies(deps, taskRegistry({ echo: { handler: () => null } })));
    const first = Math.ceil(Date.now() / 1000) * 1000 + 15 * 60_000;
    const trigger = { type: 'interval', minutes: 20, start_at: new Date(first).toISOString() };
    for (let index = 0; index < 20; index++) {
      await admin({ action: 'add_schedule', id: `race-${index}`, task: 'echo', trigger });
    }
    const ahead = { ...deps, clock: { now: () => Date.now() + 90_000 } };
    const tick = () => createTickHandler(() => ahead)();

    // Act
    const [a, b] = await Promise.all([tick(), tick()]);
    const later = await tick();

    // Assess: 20 messages in all, each schedule's live note on its next fire
    expect(a.jobsEnqueued + b.jobsEnqueued).toBe(20);
    expect(later.jobsEnqueued).toBe(0);
    expect(await messagesInQueue(local.sqs().client, queue.queueUrl)).toBe(20);
    const aheadAdmin = createAdminApi(
      adminDependencies(ahead, taskRegistry({ echo: { handler: () => null } })),
    );
    const listed = await aheadAdmin({ action: 'list_schedules', limit: 50 });
    const result = (listed.ok ? listed.result : {}) as {
      schedules?: { runs: number; next_fire_time: string }[];
    };
    const schedules = result.schedules ?? [];
    expect(schedules.map((schedule) => [schedule.runs, Date.parse(schedule.next_fire_time)])).toEqual(
      Array(20).fill([1, first + 20 * 60_000]),
    );
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
