import { describe, expect, it } from 'vitest';
import { taskWaits } from '../../../lib/core/model/task-waits';
import type { TaskSlots } from '../../../lib/core/ports/waiting-line';

const NOW = Date.parse('2026-03-02T09:00:00Z');

const slots = (fields: Partial<TaskSlots>): TaskSlots => ({
  task: 'sync',
  running: 0,
  limit: null,
  paused: false,
  ...fields,
});

describe('taskWaits: what a job that has not started waits on', () => {
  it('names each limit of its task without room: paused, every slot taken, the next start to come', () => {
    const waits = taskWaits(
      slots({
        paused: true,
        running: 2,
        limit: 2,
        rateLimit: { max: 1, perSeconds: 10 },
        nextStartAt: NOW + 4_000,
      }),
      2,
      NOW,
    );

    expect(waits).toEqual([
      { constraint: 'paused' },
      { constraint: 'max_running_jobs', running: 2, limit: 2 },
      { constraint: 'rate_limit', nextStartAt: NOW + 4_000 },
    ]);
  });

  it('names none with room: a free slot, a next start that has come, no slots item at all', () => {
    expect(taskWaits(slots({ running: 1, limit: 2, nextStartAt: NOW }), 2, NOW)).toEqual([]);
    expect(taskWaits(undefined, 2, NOW)).toEqual([]);
  });

  it('takes the limit as the task defines it now, else as the last slot was taken', () => {
    expect(taskWaits(slots({ running: 2, limit: 2 }), 5, NOW)).toEqual([]);
    expect(taskWaits(slots({ running: 2, limit: 5 }), 2, NOW)).toEqual([
      { constraint: 'max_running_jobs', running: 2, limit: 2 },
    ]);
    expect(taskWaits(slots({ running: 2, limit: 2 }), undefined, NOW)).toEqual([
      { constraint: 'max_running_jobs', running: 2, limit: 2 },
    ]);
    expect(taskWaits(slots({ running: 3, limit: 2 }), null, NOW)).toEqual([]);
  });
});
