import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPlatform, startLocalPlatform } from '../../lib/local/platform';
import { waitFor } from '../support/wait';
import { recorder } from './fixtures/recorder';

let platform: LocalPlatform;

beforeAll(async () => {
  // No pollers on the jobs queue at all: only the critical queue's own pollers can run a job.
  platform = await startLocalPlatform({
    port: 0,
    functionsDir: resolve(import.meta.dirname, 'fixtures/functions'),
    workerConcurrency: 0,
    log: () => {},
  });
});

afterAll(async () => {
  await platform?.stop();
});

describe('the local platform’s queue for critical jobs', () => {
  it('creates it on the emulator and runs a critical job through its own pollers', async () => {
    const added = await platform.invokeAdmin({
      action: 'add_job',
      task: 'record',
      job_id: 'urgent-local',
      priority: 'critical',
    });
    const runs = await waitFor(
      async () => recorder().runs.filter((run) => run.jobId === 'urgent-local'),
      (found) => found.length > 0,
    );

    expect(added).toMatchObject({ ok: true });
    expect(platform.criticalQueueUrl).toMatch(/sundial-jobs-critical$/);
    expect(runs.map((run) => run.attempt)).toEqual([1]);
  });
});
