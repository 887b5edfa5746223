import { describe, expect, it } from 'vitest';
import { type FaultRates, Faults } from '../../bench/soak/faults';
import { JobTrace } from '../../bench/soak/job-trace';
import { ExecutionRecorder } from '../../bench/soak/recorder';
import { CrashableWorkers } from '../../bench/soak/worker-crashes';
import { LeaseLostError, StoreUnavailableError } from '../../lib/core/errors';
import type { RuntimeDeps } from '../../lib/runtime/dependencies';

/** Every fault's rate is 0: nothing strikes. */
const NO_FAULTS = new Proxy({}, { get: () => 0 }) as FaultRates;

/**
 * One invocation whose handler completes `job@1` and then tries to write its result: `finishJob`
 * fails with each of `errors` in turn. Returns what the recorder made of the run.
 */
async function completedThenFinishFailsWith(errors: readonly Error[]): Promise<ExecutionRecorder> {
  const recorder = new ExecutionRecorder();
  const answers = [...errors];
  const jobStore = {
    finishJob: async () => {
      throw answers.shift();
    },
  };
  const base = { jobStore, scheduleStore: {}, queue: {} } as unknown as RuntimeDeps;
  const workers = new CrashableWorkers(
    base,
    new Faults(NO_FAULTS, { everySeconds: 0, lastingSeconds: 0 }),
    recorder,
    new JobTrace(),
  );
  await workers.invoke(
    async () => {
      recorder.start('free', { jobId: 'job@1', attempt: 1, at: 0, rev: 0 });
      workers.completed('job@1', 1);
      for (const _ of errors)
        await workers
          .deps()
          .jobStore.finishJob({ jobId: 'job@1', owner: 'o', result: {} } as never)
          .catch(() => {});
      return { batchItemFailures: [] };
    },
    { Records: [] },
  );
  return recorder;
}

describe('CrashableWorkers: a completed run whose result could not be written', () => {
  it('takes the execution back when the store stayed unavailable until the lease was lost', async () => {
    const recorder = await completedThenFinishFailsWith([
      new StoreUnavailableError('finishJob'),
      new LeaseLostError('job', 'job@1', 'o'),
    ]);

    expect(recorder.executions.has('job@1')).toBe(false);
    expect(recorder.resultsNotWritten).toBe(1);
  });

  it('takes the execution back when the store was still unavailable at the last try', async () => {
    const recorder = await completedThenFinishFailsWith([new StoreUnavailableError('finishJob')]);

    expect(recorder.resultsNotWritten).toBe(1);
  });

  it('keeps the execution counted when the lease was lost while the store answered', async () => {
    const recorder = await completedThenFinishFailsWith([new LeaseLostError('job', 'job@1', 'o')]);

    expect(recorder.executions.get('job@1')).toBe(1);
    expect(recorder.resultsNotWritten).toBe(0);
  });
});
