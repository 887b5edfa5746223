import { describe, expect, it } from 'vitest';
import { dispatchRuntime, MINUTE, once } from '../dispatch/dispatch-harness';
import { sqsRecord, T0 } from '../support';

/**
 * ADR 0008, 3: the chain of a one-off finishes its schedule before it sends the fire, and leaves a
 * closing note that removes the schedule once the job of that last fire has ended (ADR 0011), however
 * soon or late it ends. Here the fire is sent late, with no delay (missed by a tick outage).
 */
describe('a final fire sent late, whose job ends before the tick that sent it does', () => {
  async function oneOffMissedByAnOutage() {
    const runtime = dispatchRuntime();
    runtime.clock.set(T0 - 20 * MINUTE);
    await runtime.add('once', once(T0));
    // The tick was down from before the note's bucket (T0 − 14 min) until 2 minutes after the fire
    runtime.clock.set(T0 + 2 * MINUTE);
    return runtime;
  }

  it('runs it once when its job ends before the tick is done, and its closing note removes the schedule', async () => {
    const runtime = await oneOffMissedByAnOutage();
    const send = runtime.queue.send.bind(runtime.queue);
    const deliveries: unknown[] = [];
    runtime.queue.send = async (messages) => {
      const outcome = await send(messages);
      // A worker gets the message (no delay) and ends its job before the tick goes on
      deliveries.push(await runtime.deliver(runtime.queue.drain().map((message) => sqsRecord(message))));
      return outcome;
    };

    const summary = await runtime.tick();

    expect(summary).toMatchObject({ jobsEnqueued: 1, schedulesFinished: 1, errors: 0 });
    expect(runtime.sent.map((s) => [s.message.job.fireTime, s.message.delaySeconds])).toEqual([[T0, 0]]);
    expect(deliveries).toEqual([{ batchItemFailures: [] }]);
    expect(runtime.runs.get(T0)).toHaveLength(1);
    expect(await runtime.store.getSchedule('once')).toMatchObject({ nextFireAt: null, lastFireAt: T0 });
    await runtime.tickEveryMinuteUntil(T0 + 10 * MINUTE);
    expect(await runtime.store.getSchedule('once')).toBeUndefined();
    expect(await runtime.store.getFinishedScheduleRemoval('once')).toMatchObject({ lastFireAt: T0 });
  });

  it('removes it when its job ends after the tick', async () => {
    const runtime = await oneOffMissedByAnOutage();

    await runtime.tick();
    await runtime.deliver(runtime.queuedRecords());
    await runtime.tickEveryMinuteUntil(T0 + 10 * MINUTE);

    expect(runtime.runs.get(T0)).toHaveLength(1);
    expect(await runtime.store.getSchedule('once')).toBeUndefined();
  });
});
