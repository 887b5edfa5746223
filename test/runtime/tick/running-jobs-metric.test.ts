import { describe, expect, it } from 'vitest';
import { EMF } from '../../../lib/infra/metrics';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { jobRequest, testRuntime } from '../support';

describe('tick: RunningJobs metric', () => {
  it('writes RunningJobs per task from the task counters, with the dimensions the dashboard searches', async () => {
    // Prepare: two jobs of 'report' (limit 5) and one of 'cleanup' (limit 1) running
    const runtime = testRuntime({ metricsNamespace: 'Custom' });
    const now = runtime.clock.now();
    const claim = (id: string, task: string, limit: number) =>
      runtime.store.claimJob({
        job: jobRequest(id, { task }),
        attempt: 1,
        owner: `worker-${id}`,
        now,
        leaseUntil: now + 60_000,
        concurrencyLimit: limit,
      });
    await claim('a', 'report', 5);
    await claim('b', 'report', 5);
    await claim('c', 'cleanup', 1);

    // Act
    await createTickHandler(() => runtime.deps)();

    // Assess
    const running = runtime.metricLines.filter((line) => EMF.runningJobs.name in line);
    expect(running).toEqual([
      expect.objectContaining({ Service: 'tick', Task: 'cleanup', RunningJobs: 1 }),
      expect.objectContaining({ Service: 'tick', Task: 'report', RunningJobs: 2 }),
    ]);
    expect(running[0]?._aws).toMatchObject({
      CloudWatchMetrics: [
        {
          Namespace: 'Custom',
          Dimensions: [[...EMF.runningJobs.dimensionKeys]],
          Metrics: [{ Name: 'RunningJobs', Unit: 'Count' }],
        },
      ],
    });
  });

  it('still finishes the tick when the counters cannot be read', async () => {
    // Prepare
    const runtime = testRuntime();
    runtime.store.runningCounts = async () => {
      throw new Error('table unavailable');
    };

    // Act
    const summary = await createTickHandler(() => runtime.deps)();

    // Assess
    expect(summary.errors).toBe(0);
    expect(runtime.logLines.map((line) => line.message)).toContain(
      'could not read the task counters for the RunningJobs metric',
    );
  });
});
