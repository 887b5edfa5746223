import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPlatform, startLocalPlatform } from '../../lib/local/platform';
import { waitFor } from '../support/wait';
import { recorder } from './fixtures/recorder';

interface JobWire {
  status: string;
  attempt: number;
  started_at: string | null;
  finished_at: string | null;
  result: {
    outcome: string;
    attempt: number;
    return_value?: unknown;
    error?: { type: string; message: string };
  } | null;
}

/**
 * One worker poller per queue, and worker invocations of 20 s: a handler's 1 s timeout, then held to the
 * invocation's end, long enough for three such handlers started one after another on a busy machine to
 * be held together when the next job starts.
 */
const WORKER_TIMEOUT_SECONDS = 20;

let platform: LocalPlatform;
const logs: string[] = [];

beforeAll(async () => {
  platform = await startLocalPlatform({
    port: 0,
    functionsDir: resolve(import.meta.dirname, 'fixtures/stubborn/functions'),
    tickIntervalMs: 500,
    workerConcurrency: 1,
    criticalWorkerConcurrency: 1,
    workerTimeoutSeconds: WORKER_TIMEOUT_SECONDS,
    log: (line) => logs.push(line),
  });
});

afterAll(async () => {
  await platform?.stop();
});

const getJob = async (jobId: string) =>
  ((await platform.invokeAdmin({ action: 'get_job', job_id: jobId })) as { result?: { job?: JobWire } })
    .result?.job;
const addJob = (task: string, jobId: string) =>
  platform.invokeAdmin({ action: 'add_job', task, job_id: jobId });
const beating = (jobId: string) => {
  const last = recorder().lastBeat.get(jobId);
  return last !== undefined && Date.now() - last < 1_000;
};
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe('the local platform ends handlers as Lambda does', () => {
  it("stops a handler that ignores its signal at its invocation's end, records its timeout, gives its slot back and runs its retry", async () => {
    // Prepare: a task limited to one running job, whose first attempt ignores its signal for ever
    await addJob('ignores-signal', 'stubborn');
    await waitFor(
      async () => beating('stubborn'),
      (alive) => alive,
    );
    await addJob('ignores-signal', 'behind-it');

    // Act: its 1 s timeout passes, then its invocation's end
    const timedOut = await waitFor(
      () => getJob('stubborn'),
      (job) => job?.status !== 'running' && job?.status !== 'queued',
      WORKER_TIMEOUT_SECONDS * 3_000,
    );
    const retried = await waitFor(
      () => getJob('stubborn'),
      (job) => job?.status === 'success',
    );
    const behind = await waitFor(
      () => getJob('behind-it'),
      (job) => job?.status === 'success',
    );
    await sleep(1_500);

    // Assess: the timeout was recorded, the retry ran, and the task's one slot served the next job
    expect(timedOut).toMatchObject({
      status: 'retrying',
      result: { outcome: 'error', attempt: 1, error: { type: 'TimeoutError' } },
    });
    expect(timedOut?.result?.error?.message).toContain('still running at the end of the invocation');
    expect(retried).toMatchObject({
      status: 'success',
      attempt: 2,
      result: { return_value: { attempt: 2 } },
    });
    expect(behind?.status).toBe('success');
    // Assess: the first attempt was stopped for real: its sandbox ended, and it says nothing any more
    expect(beating('stubborn')).toBe(false);
    expect(logs.some((line) => line.includes('worker sandbox ended'))).toBe(true);
    // Assess: its retry started only after it had been stopped, never beside it
    const retryRun = recorder().runs.find((run) => run.jobId === 'stubborn' && run.attempt === 2);
    expect(retryRun?.startedAt).toBeGreaterThan(
      recorder().lastBeat.get('stubborn') ?? Number.POSITIVE_INFINITY,
    );
  });

  it('runs other jobs while more handlers ignore their signal than there are worker pollers', async () => {
    // Prepare: three handlers that ignore their signal, each past its 1 s timeout, with one poller a queue
    for (const jobId of ['hung-1', 'hung-2', 'hung-3']) {
      await addJob('hangs', jobId);
      await waitFor(
        async () => beating(jobId),
        (alive) => alive,
      );
    }

    // Act
    await addJob('record', 'meanwhile');
    const meanwhile = await waitFor(
      () => getJob('meanwhile'),
      (job) => job?.status === 'success',
    );
    const stillHeld = ['hung-1', 'hung-2', 'hung-3'].filter(beating);
    const hung = await waitFor(
      () => Promise.all(['hung-1', 'hung-2', 'hung-3'].map(getJob)),
      (jobs) => jobs.every((job) => job?.status === 'error'),
      WORKER_TIMEOUT_SECONDS * 3_000,
    );
    await sleep(1_500);

    // Assess: the other job started while more were held than the queue has pollers (one); each hung
    // handler was stopped with its timeout recorded
    expect(meanwhile?.status).toBe('success');
    expect(stillHeld.length).toBeGreaterThan(0);
    const heldAtItsStart = hung.filter(
      (job) => Date.parse(job?.finished_at ?? '') > Date.parse(meanwhile?.started_at ?? ''),
    );
    expect(heldAtItsStart.length).toBeGreaterThan(1);
    for (const job of hung) {
      expect(job?.result).toMatchObject({ outcome: 'error', error: { type: 'TimeoutError' } });
    }
    expect(['hung-1', 'hung-2', 'hung-3'].filter(beating)).toEqual([]);
  });
});
