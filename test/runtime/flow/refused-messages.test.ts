import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../lib/adapters/memory/memory-store';
import { ManualClock } from '../../../lib/core/clock';
import type { JobMessage, JobQueue, SendOutcome } from '../../../lib/core/ports/job-queue';
import { endingRefusedJobs, MESSAGE_REFUSED_ERROR } from '../../../lib/runtime/flow/refused-messages';
import { createLogger } from '../../../lib/runtime/observability/logger';
import { sequentialIds, T0 } from '../support';

const REASON = 'InvalidParameterValue: Message must be shorter than 262144 bytes.';

function message(id: string, attempt = 1): JobMessage {
  return {
    job: {
      id,
      task: 'echo',
      payload: {},
      origin: 'direct',
      scheduleId: null,
      fireTime: null,
      runAt: T0,
      startDeadline: null,
    },
    attempt,
    delaySeconds: 0,
  };
}

/** A queue that answers every send with `outcome`. */
function answering(outcome: SendOutcome): JobQueue {
  return { send: async () => outcome, changeVisibility: async () => {} };
}

function setUp(outcome: SendOutcome) {
  const store = new MemoryStore();
  const logs: Record<string, unknown>[] = [];
  const queue = endingRefusedJobs(answering(outcome), {
    jobStore: store,
    clock: new ManualClock(T0),
    newId: sequentialIds(),
    logger: createLogger({ level: 'debug', sink: (line) => logs.push(JSON.parse(line)) }),
    defaultResultTtlSeconds: 3_600,
  });
  return { store, queue, logs };
}

describe('endingRefusedJobs: a message the queue refuses for good ends its job', () => {
  it('ends the job with an error naming it and the reason, and reports it neither failed nor to send again', async () => {
    // Prepare: the queue refuses one message for good and fails another for a while
    const { store, queue, logs } = setUp({
      failed: ['too-big', 'throttled'],
      refused: [{ jobId: 'too-big', reason: REASON }],
    });

    // Act
    const outcome = await queue.send([message('too-big'), message('throttled'), message('fine')]);

    // Assess: only the refused job ended; the other failure stays for the caller's fallback
    expect(outcome).toEqual({ failed: ['throttled'], refused: [{ jobId: 'too-big', reason: REASON }] });
    const ended = await store.getJob('too-big', T0);
    expect(ended).toMatchObject({
      status: 'error',
      attempt: 1,
      expiresAt: T0 + 3_600_000,
      result: {
        outcome: 'error',
        startedAt: null,
        error: {
          type: MESSAGE_REFUSED_ERROR,
          message: `the queue refused the message of job 'too-big' for good, so it cannot run: ${REASON}`,
        },
      },
    });
    expect(await store.getJob('throttled', T0)).toBeUndefined();
    expect(logs.filter((line) => line.level === 'ERROR').map((line) => line.jobId)).toEqual(['too-big']);
  });

  it("leaves a refused job that someone runs to the caller's fallback: it stays failed and is not ended", async () => {
    // Prepare: a retry message (attempt 2) of a job still running attempt 1 under another's lease
    const { store, queue } = setUp({ failed: ['running'], refused: [{ jobId: 'running', reason: REASON }] });
    await store.claimJob({
      job: message('running').job,
      attempt: 1,
      owner: 'worker-1',
      now: T0,
      leaseUntil: T0 + 60_000,
    });

    // Act
    const outcome = await queue.send([message('running', 2)]);

    // Assess
    expect(outcome).toEqual({ failed: ['running'] });
    expect(await store.getJob('running', T0)).toMatchObject({ status: 'running', leaseOwner: 'worker-1' });
  });
});
