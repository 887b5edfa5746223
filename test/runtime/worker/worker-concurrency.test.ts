import { describe, expect, it } from 'vitest';
import { T0 } from '../support';
import { recordFor, workerHarness } from './harness';

describe('worker: maxRunningJobs', () => {
  it('never runs more jobs of a task than maxRunningJobs, and sends the overflow back to the queue', async () => {
    // Prepare: a task limited to 2, measuring its own concurrency; 5 jobs arrive in one batch
    let running = 0;
    let maxRunning = 0;
    const completed: string[] = [];
    const worker = workerHarness({
      limited: {
        maxRunningJobs: 2,
        handler: async (_payload, { jobId }) => {
          running += 1;
          maxRunning = Math.max(maxRunning, running);
          await new Promise((resolve) => setTimeout(resolve, 5));
          running -= 1;
          completed.push(jobId);
        },
      },
    });
    const records = ['a', 'b', 'c', 'd', 'e'].map((id) => recordFor(id, 'limited'));

    // Act: deliver, then redeliver what was reported failed until every job ran
    let pending = records;
    const rounds: number[] = [];
    while (pending.length > 0 && rounds.length < 10) {
      const response = await worker.deliver(pending);
      const failedIds = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
      rounds.push(failedIds.size);
      pending = pending.filter((record) => failedIds.has(record.messageId));
    }

    // Assess
    expect(maxRunning).toBe(2);
    expect(completed.sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(rounds).toEqual([3, 1, 0]);
    expect(worker.queue.visibilityChanges).toHaveLength(4);
    expect(await worker.store.runningCounts()).toEqual(new Map([['limited', 0]]));
  });

  it('makes a waiting message come back after a growing, jittered visibility timeout', async () => {
    // Prepare: the one slot is taken
    const worker = workerHarness({ limited: { maxRunningJobs: 1, handler: () => null } });
    await worker.store.claimJob({
      job: recordJob('holder'),
      attempt: 1,
      owner: 'someone',
      now: T0,
      leaseUntil: T0 + 60_000,
      concurrencyLimit: 1,
    });

    // Act: the same waiting message, received for the 1st, 3rd and 12th time
    const responses = await Promise.all(
      [1, 3, 12].map((receiveCount) => {
        const record = recordFor(`waiting-${receiveCount}`, 'limited');
        record.attributes.ApproximateReceiveCount = String(receiveCount);
        return worker.deliver([record]);
      }),
    );

    // Assess: random() = 0.5, so each timeout is 3/4 of its ceiling (2 s · 2^(n-1), at most 300 s)
    expect(responses.map((response) => response.batchItemFailures.length)).toEqual([1, 1, 1]);
    expect(worker.queue.visibilityChanges.map((change) => change.seconds)).toEqual([2, 6, 225]);
  });

  it('puts back a message for the next attempt while the previous attempt still runs, instead of dropping it', async () => {
    // Prepare: attempt 1 is running (its worker has not marked it retrying yet)
    let runs = 0;
    const worker = workerHarness({ echo: { handler: () => void runs++ } });
    await worker.store.claimJob({
      job: recordJob('job-1', 'echo'),
      attempt: 1,
      owner: 'w1',
      now: T0,
      leaseUntil: T0 + 60_000,
    });

    // Act
    const response = await worker.deliver([recordFor('job-1', 'echo', {}, 2)]);

    // Assess
    expect(runs).toBe(0);
    expect(response.batchItemFailures).toHaveLength(1);
  });
});

function recordJob(id: string, task = 'limited') {
  return JSON.parse(recordFor(id, task).body).job;
}
