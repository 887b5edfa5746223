import { describe, expect, it } from 'vitest';
import type { TriggerSpec } from '../../../lib/core/triggers';
import { dispatchRuntime, interval, MINUTE, type Sent } from '../dispatch/dispatch-harness';
import { SECOND, T0 } from '../support';

const daily = interval(86_400);
const everyFiveSeconds = interval(5);

/** The deployed dispatch (8 dispatchers over 16 shards) with the admin API and a worker. */
function herdRuntime() {
  const runtime = dispatchRuntime();
  runtime.clock.set(T0 - 20 * MINUTE);
  const add = (id: string, trigger: TriggerSpec) => runtime.add(id, trigger, { coalesce: 'latest' });
  return { runtime, add };
}

const deliveryOf = ({ message, at }: Sent) => at + message.delaySeconds * SECOND;

/**
 * ADR 0006's early send, now the grid's isolated read-ahead (ADR 0007, 0008): a fire whose next one is
 * more than 15 minutes later has its note read 14 minutes before it.
 */
describe('early send of a herd', () => {
  it('sends every schedule of a herd due at 10:00 at 09:46, delayed to its fire time, once; a frequent schedule waits for its chunk', async () => {
    const { runtime, add } = herdRuntime();
    const herd = Array.from({ length: 30 }, (_, n) => `daily-${n}`);
    for (const id of herd) await add(id, daily);
    await add('every-5s', everyFiveSeconds);
    runtime.clock.set(T0 - 14 * MINUTE);

    const first = await runtime.tick();
    const again = await runtime.tick();

    const herdSent = runtime.sent.filter((s) => s.message.job.scheduleId?.startsWith('daily-'));
    expect(herdSent.map((s) => s.message.job.id).sort()).toEqual(herd.map((id) => `${id}@${T0}`).sort());
    for (const entry of herdSent) {
      expect(deliveryOf(entry)).toBeLessThanOrEqual(T0);
      expect(deliveryOf(entry)).toBeGreaterThanOrEqual(T0 - 50);
    }
    // The 5 s schedule's next fire is 14 minutes away, but it fires every 5 s: its chunk's note is read
    // 150 s before the chunk
    expect(runtime.sentOf('every-5s')).toEqual([]);
    expect(first).toMatchObject({ schedulesProcessed: 30, jobsEnqueued: 30, errors: 0 });
    expect(again).toMatchObject({ schedulesProcessed: 0, jobsEnqueued: 0 });
    const read = await runtime.admin({ action: 'get_schedule', id: 'daily-0' });
    expect(read.schedule).toMatchObject({
      next_fire_time: new Date(T0 + 86_400 * SECOND).toISOString().replace('.000', ''),
      last_fire_time: new Date(T0).toISOString().replace('.000', ''),
      runs: 1,
    });
  });

  it('a fire sent early still obeys a pause, a removal or an update made after it was sent (ADR 0002)', async () => {
    const { runtime, add } = herdRuntime();
    for (const id of ['kept', 'paused', 'removed', 'updated']) await add(id, daily);
    runtime.clock.set(T0 - 14 * MINUTE);
    await runtime.tick();
    const sentEarly = runtime.sent.length;

    runtime.clock.set(T0 - 5 * MINUTE);
    await runtime.admin({ action: 'pause_schedule', id: 'paused' });
    await runtime.admin({ action: 'remove_schedule', id: 'removed' });
    await runtime.admin({ action: 'update_schedule', id: 'updated', payload: { n: 2 } });
    await runtime.deliverDue(T0 + MINUTE);

    expect(sentEarly).toBe(4);
    const runs = [...runtime.runs.values()]
      .flat()
      .map(({ scheduleId, payload }) => ({ scheduleId, payload }));
    expect(runs.sort((a, b) => String(a.scheduleId).localeCompare(String(b.scheduleId)))).toEqual([
      { scheduleId: 'kept', payload: {} },
      { scheduleId: 'updated', payload: { n: 2 } },
    ]);
    expect(await runtime.store.getJob(`paused@${T0}`, T0)).toMatchObject({ status: 'cancelled' });
    expect(await runtime.store.getJob(`removed@${T0}`, T0)).toMatchObject({ status: 'cancelled' });
  });
});
