import { describe, expect, it } from 'vitest';
import { JobTrace } from '../../bench/soak/job-trace';
import type { JobStore } from '../../lib/core/ports/job-store';

/** A store whose claims succeed and write `startedAt` as the job's `started_at`. */
function claimingStore(startedAt: number): JobStore {
  return {
    claimJob: async () => ({ status: 'claimed', job: { id: 'sched@1', startedAt } }),
  } as unknown as JobStore;
}

describe('JobTrace: when a traced claim started its run', () => {
  it("counts a fire's start from the started_at its claim wrote (its check's read), not the claim's own time", async () => {
    const trace = new JobTrace();
    const store = trace.store(claimingStore(1_000), () => 'worker');

    await store.claimJob({ job: { id: 'sched@1' }, attempt: 1, now: 4_500 } as never);

    expect(trace.claimOfRun('sched@1', 1, 5_000)).toBe(1_000);
  });

  it("counts a takeover's start from the claim of the run it continues", async () => {
    const trace = new JobTrace();
    const first = trace.store(claimingStore(1_000), () => 'first');
    const second = trace.store(claimingStore(9_000), () => 'second');

    await first.claimJob({ job: { id: 'sched@1' }, attempt: 1, now: 1_200 } as never);
    await second.claimJob({ job: { id: 'sched@1' }, attempt: 2, now: 9_200 } as never);

    expect(trace.claimOfRun('sched@1', 2, 9_500)).toBe(1_000);
  });
});
