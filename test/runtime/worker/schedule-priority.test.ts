import { describe, expect, it } from 'vitest';
import { SECOND, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';

const every10s = { type: 'interval', seconds: 10, start_at: new Date(T0).toISOString() } as const;

describe('worker: the priority of a schedule’s jobs', () => {
  it('sends the fires sent before a priority change again with the new priority', async () => {
    // Prepare: fires every 10 s, sent as normal
    const p = adminAndWorker({ beat: { handler: () => undefined } });
    await p.admin({ action: 'add_schedule', id: 'beat', task: 'beat', trigger: every10s });
    const sentNormal = p.queue.drain();

    // Act: raised to critical, then the fire at +20 s sent before the change is delivered
    await p.admin({ action: 'update_schedule', id: 'beat', priority: 'critical' });
    const fire = sentNormal.find((message) => message.job.fireTime === T0 + 20 * SECOND);
    if (!fire) throw new Error('no fire at +20 s');
    p.clock.set(fire.job.runAt);
    await p.deliver(fire);

    // Assess: cancelled as sent, and sent again as the current definition, critical
    expect(fire.job.priority).toBeUndefined();
    const [replacement] = p.queue.drain();
    expect(replacement?.job).toMatchObject({ id: fire.job.id, priority: 'critical' });
  });

  it('keeps a critical fire critical in its retry', async () => {
    const p = adminAndWorker({
      beat: {
        retry: { maxAttempts: 2, backoffSeconds: 1 },
        handler: () => {
          throw new Error('down');
        },
      },
    });
    await p.admin({
      action: 'add_schedule',
      id: 'beat',
      task: 'beat',
      trigger: every10s,
      priority: 'critical',
    });
    const [first] = p.queue.drain();
    if (!first) throw new Error('no fire sent');

    await p.deliver(first);

    const [retry] = p.queue.drain();
    expect(retry).toMatchObject({ attempt: 2, job: { id: first.job.id, priority: 'critical' } });
  });
});
