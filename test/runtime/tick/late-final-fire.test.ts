import { describe, expect, it } from 'vitest';
import type { TriggerSpec } from '../../../lib/core/triggers';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { SECOND, scheduleDefinition, T0 } from '../support';

const MINUTE = 60 * SECOND;

import { fireCountingWorker } from './fire-counting-worker';

/**
 * The lease-less path's final fire (ADR 0005): its job can end before the tick's advance writes that the
 * schedule finished; the worker's cleanup then looks again while that advance can still come. A fire
 * sent more than a minute late (a one-off missed during a tick outage) must get that wait too.
 */
describe('a final fire sent late, whose job ends before the tick moves its schedule on', () => {
  async function oneOffMissedByAnOutage() {
    const harness = fireCountingWorker();
    const { worker } = harness;
    worker.clock.set(T0 - 10 * MINUTE);
    await worker.store.addSchedule({
      schedule: scheduleDefinition('once', {
        trigger: { type: 'date', run_at: new Date(T0).toISOString() } as unknown as TriggerSpec,
      }),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: worker.clock.now(),
    });
    // The tick was down for 2 minutes: the fire is sent with no delay, marked final
    worker.clock.set(T0 + 2 * MINUTE);
    return harness;
  }

  it('removes the finished schedule once the advance lands, the message coming back until then', async () => {
    const { worker, runs } = await oneOffMissedByAnOutage();
    const advance = worker.store.advanceSchedule.bind(worker.store);
    const delivered = worker.queuedRecords;
    let records: ReturnType<typeof delivered> = [];
    const before: unknown[] = [];
    worker.store.advanceSchedule = async (input) => {
      records = worker.queuedRecords();
      before.push(await worker.deliver(records));
      return advance(input);
    };
    const tick = createTickHandler(() => worker.deps);

    const summary = await tick();
    // The kept message comes back (a second later) and finds the schedule finished
    worker.clock.advance(1_000);
    const after = await worker.deliver(records);

    expect(summary).toMatchObject({ jobsEnqueued: 1, schedulesFinished: 1, errors: 0 });
    expect(runs.get(T0)).toBe(1);
    expect(before).toEqual([{ batchItemFailures: [expect.anything()] }]);
    expect(after).toEqual({ batchItemFailures: [] });
    expect(await worker.store.getSchedule('once')).toBeUndefined();
  });

  it('removes it at once when the advance lands before the job ends', async () => {
    const { worker } = await oneOffMissedByAnOutage();
    await createTickHandler(() => worker.deps)();
    await worker.deliver(worker.queuedRecords());

    expect(await worker.store.getSchedule('once')).toBeUndefined();
  });
});
