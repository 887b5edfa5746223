import { describe, expect, it } from 'vitest';
import { createHarness, type Harness, SECOND, T0 } from './support/harness';
import { tickOf } from './support/tick';

const every = (seconds: number) => ({ type: 'interval', seconds, start_at: new Date(T0).toISOString() });

const restarts: Record<string, (h: Harness) => Promise<unknown>> = {
  'a new trigger': (h) => h.ok({ action: 'update_schedule', id: 's', trigger: every(20) }),
  'a pause and a resume': async (h) => {
    await h.ok({ action: 'pause_schedule', id: 's' });
    h.clock.advance(5 * SECOND);
    await h.ok({ action: 'resume_schedule', id: 's' });
  },
  'a replace': (h) =>
    h.ok({
      action: 'add_schedule',
      id: 's',
      task: 'cleanup',
      trigger: every(30),
      conflict_policy: 'replace',
    }),
};

/**
 * ADR 0008 §1: a write that moves a schedule's fire times starts a new chain; every note of the old one
 * (its next, written by the add, due in the same bucket as the new chain's) is read and skipped.
 */
describe('a change that moves a schedule’s fire times', () => {
  it.each(Object.keys(restarts))(
    'starts a new chain with %s: no note of the old chain sends again',
    async (kind) => {
      // Prepare: every 30 s; the add sent 0..210 s itself and noted 240 s (read from 90 s on)
      const h = createHarness();
      const tick = tickOf(h);
      await h.ok({ action: 'add_schedule', id: 's', task: 'cleanup', trigger: every(30) });
      const before = await h.store.getSchedule('s');
      h.clock.set(T0 + 10 * SECOND);

      // Act: the change, then the ticks of the next five minutes
      await restarts[kind]?.(h);
      const after = await h.store.getSchedule('s');
      h.queue.messages.length = 0;
      let staleNotes = 0;
      for (let at = 30; at <= 330; at += 30) {
        h.clock.set(T0 + at * SECOND);
        staleNotes += (await tick()).notes.staleNotes;
      }

      // Assess: the ticks sent each fire once, all under the changed schedule's revision
      const ids = h.queue.messages.map((message) => message.job.id);
      expect(after?.chain).not.toBe(before?.chain);
      expect(ids.length).toBeGreaterThan(0);
      expect(new Set(ids).size).toBe(ids.length);
      expect(h.queue.messages.every((message) => message.revision?.version === after?.version)).toBe(true);
      expect(staleNotes).toBe(1);
    },
  );
});
