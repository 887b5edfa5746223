import { describe, expect, it } from 'vitest';
import type { JobMessageBody } from '../../../lib/core/model/job-message';
import { copyOf, linePosition } from '../../../lib/core/ports/waiting-line';
import { jobRequest } from '../support';
import { createHarness, errorOf, SECOND, T0 } from './support/harness';

function waiting(id: string, runAt: number): JobMessageBody {
  return { job: jobRequest(id, { task: 'cleanup', runAt }), attempt: 1 };
}

describe('pause_task and resume_task', () => {
  it('pauses a task (idempotently) and shows it paused with its waiting jobs', async () => {
    const h = createHarness();
    await h.store.joinLine({ message: waiting('w1', T0), now: T0 });

    const first = await h.ok<{ task: { id: string; paused: boolean; waiting: number } }>({
      action: 'pause_task',
      task: 'cleanup',
    });
    const again = await h.ok<{ task: { paused: boolean } }>({ action: 'pause_task', task: 'cleanup' });

    expect(first.task).toMatchObject({ id: 'cleanup', paused: true, waiting: 1, running: 0 });
    expect(again.task.paused).toBe(true);
    expect(await h.store.taskSlots('cleanup')).toMatchObject({ paused: true });
  });

  it('resumes a task and wakes as many waiting jobs as it has free slots, in line order', async () => {
    // cleanup allows 2 running jobs
    const h = createHarness();
    await h.store.claimJob({
      job: waiting('running-one', T0).job,
      attempt: 1,
      owner: 'w',
      now: T0,
      leaseUntil: T0 + 60 * SECOND,
      concurrencyLimit: 2,
    });
    await h.ok({ action: 'pause_task', task: 'cleanup' });
    for (const [id, runAt] of [
      ['c', T0 + 3 * SECOND],
      ['a', T0 + SECOND],
      ['b', T0 + 2 * SECOND],
    ] as const) {
      await h.store.joinLine({ message: waiting(id, runAt), now: T0 });
    }
    const whilePaused = await h.store.claimJob({
      job: waiting('newcomer', T0).job,
      attempt: 1,
      owner: 'w2',
      now: T0,
      leaseUntil: T0 + 60 * SECOND,
      concurrencyLimit: 2,
    });

    const result = await h.ok<{ woken_jobs: number; task: { paused: boolean; waiting: number } }>({
      action: 'resume_task',
      task: 'cleanup',
    });

    // A woken job still counts as waiting until it starts; the line's head is the next one
    expect(whilePaused.status).toBe('no_slot');
    expect(result).toMatchObject({ woken_jobs: 1, task: { paused: false, waiting: 3 } });
    expect(h.queue.messages.map((message) => [message.job.id, message.delaySeconds])).toEqual([['a', 0]]);
    expect((await h.store.lineHead('cleanup'))?.message.job.id).toBe('b');
  });

  it('answers the task as at its resume even when a worker starts the woken job before the answer', async () => {
    const h = createHarness();
    await h.ok({ action: 'pause_task', task: 'cleanup' });
    await h.store.joinLine({ message: waiting('a', T0), now: T0 });
    const send = h.queue.send.bind(h.queue);
    h.queue.send = async (messages) => {
      const sent = await send(messages);
      // A worker as quick as can be: the woken job starts before the resume has answered
      for (const message of messages) {
        await h.store.claimJob({
          job: message.job,
          attempt: message.attempt,
          owner: 'w',
          now: T0,
          leaseUntil: T0 + 60 * SECOND,
          concurrencyLimit: 2,
          woken: { position: linePosition(message), copy: copyOf(message) },
        });
      }
      return sent;
    };

    const result = await h.ok<{ woken_jobs: number; task: { waiting: number; running: number } }>({
      action: 'resume_task',
      task: 'cleanup',
    });

    expect(await h.store.waitingCount('cleanup')).toBe(0);
    expect(result).toMatchObject({ woken_jobs: 1, task: { waiting: 1, running: 0 } });
  });

  it('wakes no more jobs than the task allows when none of its jobs ever took a slot', async () => {
    // cleanup allows 2 running jobs; its counter has never seen a limited job
    const h = createHarness();
    await h.ok({ action: 'pause_task', task: 'cleanup' });
    for (const id of ['a', 'b', 'c']) await h.store.joinLine({ message: waiting(id, T0), now: T0 });

    const result = await h.ok<{ woken_jobs: number; task: { waiting: number } }>({
      action: 'resume_task',
      task: 'cleanup',
    });

    expect(result).toMatchObject({ woken_jobs: 2, task: { waiting: 3 } });
    expect(h.queue.messages.map((message) => message.job.id).sort()).toEqual(['a', 'b']);
    expect((await h.store.lineHead('cleanup'))?.message.job.id).toBe('c');
    expect(await h.store.taskSlots('cleanup')).toMatchObject({ running: 2, limit: 2 });
  });

  it('refuses an unknown task, a missing one and unknown fields, writing nothing', async () => {
    const h = createHarness();

    const unknown = errorOf(await h.call({ action: 'pause_task', task: 'nope' }));
    const missing = errorOf(await h.call({ action: 'resume_task' }));
    const extra = errorOf(await h.call({ action: 'pause_task', task: 'cleanup', until: 'tomorrow' }));

    expect(unknown.code).toBe('unknown_task');
    expect(missing).toMatchObject({ code: 'invalid_input', details: [{ path: 'task' }] });
    expect(extra).toMatchObject({ code: 'invalid_input', details: [{ path: 'until' }] });
    expect(await h.store.allTaskSlots()).toEqual([]);
  });
});
