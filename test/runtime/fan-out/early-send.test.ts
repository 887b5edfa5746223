import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../lib/core/json';
import type { TriggerSpec } from '../../../lib/core/triggers';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { SECOND, scheduleDefinition, sqsRecord, T0 } from '../support';
import { workerHarness } from '../worker/harness';

const MINUTE = 60 * SECOND;
const daily = {
  type: 'interval',
  seconds: 86_400,
  start_at: new Date(T0).toISOString(),
} as unknown as TriggerSpec;
const everyFiveSeconds = {
  type: 'interval',
  seconds: 5,
  start_at: new Date(T0).toISOString(),
} as unknown as TriggerSpec;

/** A worker whose task `echo` records each run (schedule id and payload), and a tick over the same store. */
function herdRuntime() {
  const runs: { scheduleId: string | null; payload: JsonValue }[] = [];
  const worker = workerHarness(
    { echo: { handler: (payload, { scheduleId }) => void runs.push({ scheduleId, payload }) } },
    { earlySendSeconds: 900, dispatchers: 4 },
  );
  const tick = createTickHandler(() => worker.deps);
  const add = (id: string, trigger: TriggerSpec) =>
    worker.store.addSchedule({
      schedule: scheduleDefinition(id, { trigger }),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: worker.clock.now(),
    });
  return { worker, tick, runs, add };
}

describe('early send of a herd (ADR 0006)', () => {
  it('sends every schedule of a herd due at 09:00 at 08:46, delayed to its fire time, once; a frequent schedule gets only its lookahead', async () => {
    const { worker, tick, add } = herdRuntime();
    worker.clock.set(T0 - 14 * MINUTE);
    const herd = Array.from({ length: 30 }, (_, n) => `daily-${n}`);
    for (const id of herd) await add(id, daily);
    await add('every-5s', everyFiveSeconds);

    const first = await tick();
    const again = await tick();

    const sent = worker.queue.sent;
    const herdMessages = sent.filter((message) => message.job.scheduleId?.startsWith('daily-'));
    expect(herdMessages.map((message) => message.job.id).sort()).toEqual(
      herd.map((id) => `${id}@${T0}`).sort(),
    );
    expect(new Set(herdMessages.map((message) => message.delaySeconds))).toEqual(new Set([840]));
    // The 5 s schedule's next fire is 14 minutes away, but fires every 5 s: it waits for its lookahead.
    expect(sent.filter((message) => message.job.scheduleId === 'every-5s')).toEqual([]);
    expect(first).toMatchObject({ schedulesProcessed: 30, jobsEnqueued: 30, errors: 0 });
    expect(again).toMatchObject({ schedulesProcessed: 0, jobsEnqueued: 0 });
    expect(await worker.store.getSchedule('daily-0')).toMatchObject({
      nextFireAt: T0 + 86_400 * SECOND,
      lastFireAt: T0,
    });
  });

  it('a fire sent early still obeys a pause, a removal or an update made after it was sent (ADR 0002)', async () => {
    const { worker, tick, runs, add } = herdRuntime();
    worker.clock.set(T0 - 14 * MINUTE);
    for (const id of ['kept', 'paused', 'removed', 'updated']) await add(id, daily);
    await tick();
    const sentEarly = worker.queue.drain();

    worker.clock.set(T0 - 5 * MINUTE);
    await worker.store.pauseSchedule('paused', worker.clock.now());
    await worker.store.removeSchedule('removed');
    await worker.store.updateSchedule(
      'updated',
      { payload: { n: 2 } },
      T0 + 86_400 * SECOND,
      worker.clock.now(),
    );
    worker.clock.set(T0);
    await worker.deliver(sentEarly.map((message) => sqsRecord(message)));
    await worker.deliver(worker.queuedRecords());

    expect(sentEarly).toHaveLength(4);
    expect(runs.sort((a, b) => String(a.scheduleId).localeCompare(String(b.scheduleId)))).toEqual([
      { scheduleId: 'kept', payload: { n: 1 } },
      { scheduleId: 'updated', payload: { n: 2 } },
    ]);
    expect(await worker.store.getJob(`paused@${T0}`, T0)).toMatchObject({ status: 'cancelled' });
    expect(await worker.store.getJob(`removed@${T0}`, T0)).toMatchObject({ status: 'cancelled' });
  });
});
