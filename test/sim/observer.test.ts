import { describe, expect, it } from 'vitest';
import type { Job } from '../../lib/core/model/job';
import type { JobContext } from '../../lib/runtime/tasks/define-task';
import { Observer } from '../../sim/observer';
import { Simulation } from '../../sim/scheduler';
import { jobRequest } from '../runtime/support';

function observer(): Observer {
  return new Observer(new Simulation(1, Date.parse('2026-03-02T00:00:00Z')), async () => undefined);
}

function claimedJob(attempt: number, createToken?: string, startedAt = 0): Job {
  return {
    ...jobRequest('job-1'),
    attempt,
    status: 'running',
    leaseOwner: `worker-${attempt}`,
    leaseUntil: null,
    holdsSlot: false,
    createdAt: 0,
    startedAt,
    finishedAt: null,
    result: null,
    expiresAt: null,
    ...(createToken && { createToken }),
  };
}

/** A handler start of attempt `attempt` of job-1, running payload revision `rev`. */
async function start(watch: Observer, attempt: number, rev: number): Promise<void> {
  const context = { jobId: 'job-1', attempt } as unknown as JobContext;
  watch.ended(watch.started('steady', context, { run: 'ok', ms: 10, rev }));
  await new Promise((resolve) => setImmediate(resolve));
}

describe("the simulation's observer", () => {
  it('reports a claim whose attempt number is lower than one claimed before, for the same creation of the job', () => {
    const watch = observer();

    watch.claimed(claimedJob(2), false);
    watch.claimed(claimedJob(2), false);
    watch.claimed(claimedJob(1, 'added-again'), false);
    const clean = [...watch.violations];
    watch.claimed(claimedJob(1), false);

    expect(clean).toEqual([]);
    expect(watch.violations).toEqual([
      expect.stringMatching(/job-1 was claimed as attempt 1 after attempt 2 was claimed$/),
    ]);
  });

  it('reports a later attempt that runs another payload revision than the one its job started with', async () => {
    const watch = observer();

    await start(watch, 1, 3);
    await start(watch, 2, 3);
    const clean = [...watch.violations];
    await start(watch, 3, 4);

    expect(clean).toEqual([]);
    expect(watch.violations).toEqual([
      expect.stringMatching(/job-1 attempt 3 ran payload revision 4, but an earlier attempt ran revision 3$/),
    ]);
  });

  it("checks a job's first start, at any attempt, against the check of the claim that fixed its definition: the latest claim that carried a fire check", async () => {
    const checked: { attempt: number; definedAt: number }[] = [];
    const watch = new Observer(
      new Simulation(1, Date.parse('2026-03-02T00:00:00Z')),
      async () => claimedJob(2),
      (run, definedAt) => {
        checked.push({ attempt: run.attempt, definedAt });
        return undefined;
      },
    );

    watch.claimed(claimedJob(1, undefined, 100), false);
    watch.claimed(claimedJob(1, undefined, 200), true);
    watch.claimed(claimedJob(2, undefined, 300), false);
    await start(watch, 2, 1);
    await start(watch, 3, 1);

    expect(checked).toEqual([{ attempt: 2, definedAt: 200 }]);
  });
});
