import { describe, expect, it } from 'vitest';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { SECOND, T0 } from '../support';
import { adminAndWorker } from '../worker/admin-and-worker';

const MINUTE = 60 * SECOND;

describe('a job replaced after its message was sent (conflict_policy replace)', () => {
  it('runs the replacement at its run time, never the old definition from the message already sent', async () => {
    const runs: { payload: unknown; at: number }[] = [];
    const h = adminAndWorker({
      report: { handler: async (payload: unknown) => void runs.push({ payload, at: h.clock.now() }) },
    });
    // A job 20 minutes ahead: parked.
    const added = await h.admin({
      action: 'add_job',
      task: 'report',
      job_id: 'j',
      payload: { v: 1 },
      run_at: new Date(T0 + 20 * MINUTE).toISOString(),
    });
    expect(added.queued).toBe('parked');
    // The tick sends it 90 s ahead.
    h.clock.set(T0 + 20 * MINUTE - 80 * SECOND);
    await createTickHandler(() => h.deps)();
    expect(h.queue.sent.map((m) => m.job.payload)).toEqual([{ v: 1 }]);
    // The owner replaces it, an hour later and with a new payload (parked again).
    h.clock.set(T0 + 20 * MINUTE - 60 * SECOND);
    const replaced = await h.admin({
      action: 'add_job',
      task: 'report',
      job_id: 'j',
      payload: { v: 2 },
      run_at: new Date(T0 + 80 * MINUTE).toISOString(),
      conflict_policy: 'replace',
    });
    expect(replaced).toMatchObject({ status: 'replaced', queued: 'parked' });

    // The old message arrives; later, ticks run until past the new run time.
    await h.deliverDue(20 * 60);
    for (let minute = 21; minute <= 82; minute++) {
      h.clock.set(T0 + minute * MINUTE);
      await createTickHandler(() => h.deps)();
      await h.deliverDue(minute * 60);
    }

    expect(runs).toEqual([{ payload: { v: 2 }, at: T0 + 80 * MINUTE }]);
  });
});
