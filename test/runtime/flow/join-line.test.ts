import { describe, expect, it } from 'vitest';
import type { JobMessageBody } from '../../../lib/core/model/job-message';
import { joinWaitingLine } from '../../../lib/runtime/flow/join-line';
import { jobRequest, T0, testRuntime } from '../support';

/** Two copies of one fire: the first chain's (version 1) and the one a resume sent (version 3). */
const copy = (version: number): JobMessageBody => ({
  job: jobRequest('fire', { task: 'limited', runAt: T0 }),
  attempt: 1,
  revision: { createdAt: T0 - 60_000, version, firesFrom: T0 - 60_000 },
});

describe('joining the line when a slot was given back meanwhile (ADR 0009)', () => {
  it("takes the job's own turn only as the copy its entry carries: an older copy's join wakes the newer copy through the queue", async () => {
    // Prepare: task `limited` at its limit (one run holds its only slot); the newer copy waits in line
    const { deps, store, queue } = testRuntime();
    await store.claimJob({
      job: jobRequest('holder', { task: 'limited' }),
      attempt: 1,
      owner: 'worker-holder',
      now: T0,
      leaseUntil: T0 + 60_000,
      concurrencyLimit: 1,
    });
    const newer = await joinWaitingLine(deps, copy(3));

    // Act: the slot comes free between the older copy's refused claim and its join
    store.setRunningCount('limited', 0);
    const older = await joinWaitingLine(deps, copy(1));

    // Assess: the line kept the newer copy, which alone can claim the woken entry: it goes by the queue
    expect(newer.ownTurn).toBe(false);
    expect(older.ownTurn).toBe(false);
    expect(queue.sent.map((message) => [message.job.id, message.woken, message.revision?.version])).toEqual([
      ['fire', true, 3],
    ]);
  });
});
