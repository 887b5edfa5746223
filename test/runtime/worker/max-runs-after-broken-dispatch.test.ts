import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { SECOND, T0 } from '../support';
import { adminAndWorker } from './admin-and-worker';

const iso = (instant: number) => new Date(instant).toISOString();

/** How the tick's dispatch of the schedule's note ended. */
type Fate = 'ends well' | 'dies after its send' | 'loses the answer of its send';

/**
 * `max_runs: 14`, every 30 s from T0, added at T0 − 1 s: the add sends 0..210 s itself (8 fires) and
 * leaves the note of 240 s, which a tick reads from 90 s on (it sends 240..330 s, runs 12).
 */
async function platform(coalesce = 'all') {
  const runs: number[] = [];
  const p = adminAndWorker({
    beat: {
      handler: (_payload, { fireTime }) => void runs.push(((fireTime?.getTime() ?? 0) - T0) / SECOND),
    },
  });
  p.clock.set(T0 - SECOND);
  await p.admin({ action: 'add_schedule', ...definition(coalesce) });
  return { ...p, runs };
}

type Platform = Awaited<ReturnType<typeof platform>>;

function definition(coalesce = 'all') {
  const trigger = { type: 'interval', seconds: 30, start_at: iso(T0) };
  return { id: 's', task: 'beat', trigger, max_runs: 14, keep_finished: true, coalesce };
}

/**
 * The next tick's dispatch sends its fires, then dies before it writes the notes after them (its cursor
 * stays: the next tick reads the same note again), or learns nothing of its send (it notes the schedule
 * again to retry it, with the same job ids).
 */
function breakNextDispatch(p: Platform, fate: Fate) {
  if (fate === 'dies after its send') {
    vi.spyOn(p.store, 'writeDueNotes').mockRejectedValueOnce(new Error('the dispatcher died'));
  }
  if (fate === 'loses the answer of its send') {
    const send = p.queue.send.bind(p.queue);
    vi.spyOn(p.queue, 'send').mockImplementationOnce(async (messages) => {
      await send(messages);
      throw new Error('the answer of the send was lost');
    });
  }
}

async function change(p: Platform, kind: string, at: number, coalesce: string) {
  if (kind === 'replace') {
    await p.admin({ action: 'add_schedule', ...definition(coalesce), conflict_policy: 'replace' });
  } else if (kind === 'trigger') {
    const trigger = { type: 'interval', seconds: 15, start_at: iso(T0) };
    await p.admin({ action: 'update_schedule', id: 's', trigger });
  } else {
    await p.admin({ action: 'pause_schedule', id: 's' });
    p.clock.set(T0 + (at + 1) * SECOND);
    await p.admin({ action: 'resume_schedule', id: 's' });
  }
}

/** ADR 0008 §4: a schedule with `max_runs` starts exactly `max_runs` fires, whatever its dispatches went through. */
describe('a change of a capped schedule after a dispatch that broke down', () => {
  it.each(['dies after its send', 'loses the answer of its send'] as const)(
    'counts the fires a dispatch sent before a replace when it %s: max_runs run, each once',
    async (fate) => {
      // Prepare: the tick at 100 s sends 240..330 s and breaks down; 240 s runs
      const p = await platform();
      p.clock.set(T0 + 100 * SECOND);
      breakNextDispatch(p, fate);
      await p.tick();
      await p.deliverDue(250);

      // Act: the schedule is replaced by the same definition at 250 s, then everything runs to the end
      await change(p, 'replace', 250, 'all');
      await p.runUntil(900);

      // Assess: the runs carried over are the fires that started (9: 0..240 s); five more ran
      expect(p.runs).toEqual([0, 30, 60, 90, 120, 150, 180, 210, 240, 270, 300, 330, 360, 390]);
      expect(await p.store.getSchedule('s')).toMatchObject({ runs: 14, startedRuns: 14, nextFireAt: null });
    },
  );

  it('counts them when the change is a pause, so that the resume runs no more than max_runs', async () => {
    const p = await platform();
    p.clock.set(T0 + 100 * SECOND);
    breakNextDispatch(p, 'dies after its send');
    await p.tick();
    await p.deliverDue(250);

    await change(p, 'pause', 250, 'all');
    await p.runUntil(900);

    expect(p.runs).toEqual([0, 30, 60, 90, 120, 150, 180, 210, 240, 270, 300, 330, 360, 390]);
    expect(await p.store.getSchedule('s')).toMatchObject({ runs: 14, nextFireAt: null });
  });

  it('runs exactly max_runs fires, each once, whatever the change, its time and the fate of the dispatch before it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('replace', 'pause', 'trigger'),
        fc.constantFrom('all', 'latest', 'earliest'),
        fc.integer({ min: 90, max: 200 }),
        fc.integer({ min: 0, max: 150 }),
        fc.constantFrom<Fate>('ends well', 'dies after its send', 'loses the answer of its send'),
        async (kind, coalesce, tickAt, changeAfter, fate) => {
          const p = await platform(coalesce);
          p.clock.set(T0 + tickAt * SECOND);
          breakNextDispatch(p, fate);
          await p.tick();
          vi.restoreAllMocks();
          const changeAt = tickAt + changeAfter;
          await p.deliverDue(changeAt);
          // Never in the very millisecond a fire starts (a new chain may start at that fire's time)
          p.clock.advance(500);
          await change(p, kind, changeAt, coalesce);
          await p.runUntil(900);

          expect(p.runs.length).toBe(14);
          expect(new Set(p.runs).size).toBe(14);
          expect(await p.store.getSchedule('s')).toMatchObject({
            runs: 14,
            startedRuns: 14,
            nextFireAt: null,
          });
        },
      ),
      { numRuns: 50 },
    );
  });
});
