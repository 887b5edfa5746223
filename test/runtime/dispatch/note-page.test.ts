import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../lib/adapters/memory/memory-store';
import { ManualClock } from '../../../lib/core/clock';
import type { ScheduleDefinition } from '../../../lib/core/model/schedule';
import { bucketOf, DEFAULT_NOTE_GRID, firstOpenBucket } from '../../../lib/core/planning/note-chunks';
import type { DueNote, DueNotesPosition } from '../../../lib/core/ports/due-notes';
import type { DispatchDeps } from '../../../lib/runtime/dispatch/dispatch-deps';
import { dispatchNotePage } from '../../../lib/runtime/dispatch/note-page';
import { NoteRun } from '../../../lib/runtime/dispatch/note-run';
import { SendTimes } from '../../../lib/runtime/dispatch/send-fires';
import { createLogger } from '../../../lib/runtime/observability/logger';
import { clockSleep, idAtPhase, RecordingQueue, SECOND, scheduleDefinition, T0 } from '../support';

const bucket = (time: number) => bucketOf(DEFAULT_NOTE_GRID, time);
/** `every-30s`: a schedule whose chunks start at the grid's own boundaries (T0 is one). */
const ID = idAtPhase('every-30s');

/**
 * `every-30s` (every 30 s from T0, unless `overrides` say otherwise) stored on chain `c1` with its note
 * of next fire `nextFireAt` in `noteBucket`, and the dependencies of a dispatch at `now` (sent at once).
 */
async function notedSchedule(options: {
  now: number;
  nextFireAt?: number;
  noteBucket?: number;
  overrides?: Partial<ScheduleDefinition>;
  maxFiresPerPlan?: number;
}) {
  const store = new MemoryStore();
  const queue = new RecordingQueue();
  const clock = new ManualClock(options.now);
  const nextFireAt = options.nextFireAt ?? T0;
  const note: DueNote = {
    bucket: options.noteBucket ?? bucket(options.now),
    entry: { scheduleId: ID, chain: 'c1', nextFireAt, runs: 0, lastFireAt: null },
  };
  // The chain started long before: its first note was placed by a writer an hour earlier
  const startedAt = options.now - 3_600 * SECOND;
  await store.addSchedule({
    schedule: scheduleDefinition(ID, options.overrides),
    position: { nextFireAt, lastFireAt: null, runs: 0 },
    start: { chain: 'c1', note, writer: 'test.c1.0', now: startedAt },
    conflictPolicy: 'exception',
    now: startedAt,
  });
  const deps: DispatchDeps = {
    scheduleStore: store,
    jobStore: store,
    queue,
    clock,
    random: () => 0.5,
    maxFiresPerPlan: options.maxFiresPerPlan ?? 1_000,
    sleep: clockSleep(clock),
    toleranceMs: 0,
    sendTimes: new SendTimes(),
    phasesUntil: 0,
  };
  const shard = store.noteShardOf(ID);
  const run = new NoteRun('tick-a', [shard]);
  const logger = createLogger({ level: 'error', sink: () => {} });
  const dispatch = () => dispatchNotePage(deps, run, [note], new Map(), { concurrency: 2, logger });
  /** The notes written after the first note (successors and notes written again), by the dispatch. */
  const written = async () => {
    const notes: DueNote[] = [];
    let from: DueNotesPosition | undefined;
    do {
      const page = await store.readDueNotes({
        shard,
        afterBucket: note.bucket - 1,
        now: T0 + 3_600 * SECOND,
        limit: 100,
        ...(from && { from }),
      });
      notes.push(...page.notes);
      from = page.next;
    } while (from);
    return notes.filter((n) => n.entry.nextFireAt !== nextFireAt || n.bucket !== note.bucket);
  };
  return { store, queue, clock, deps, run, note, dispatch, written };
}

describe('dispatchNotePage: one page of due notes', () => {
  it('sends the fires of a note’s chunk, each delayed by the whole seconds to its run time, and notes the chunk after', async () => {
    // Prepare: the note of the chunk [T0, T0 + 120 s), read on time, 150 s before it
    const { queue, dispatch, written, run } = await notedSchedule({ now: T0 - 150 * SECOND });

    // Act
    const outcome = await dispatch();

    // Assess
    expect(queue.sent.map((message) => [message.job.id, message.delaySeconds, message.attempt])).toEqual(
      [0, 30, 60, 90].map((s) => [`${ID}@${T0 + s * SECOND}`, 150 + s, 1]),
    );
    expect(queue.sent[1]?.job).toMatchObject({ task: 'echo', origin: 'schedule', scheduleId: ID });
    expect(outcome).toEqual({
      summaries: [
        {
          scheduleId: ID,
          jobsSent: 4,
          sendFailures: 0,
          nextFireAt: T0 + 120 * SECOND,
          fireLagMs: [],
        },
      ],
      removed: [],
    });
    expect(await written()).toEqual([
      {
        bucket: bucket(T0 - 30 * SECOND),
        entry: {
          scheduleId: ID,
          chain: 'c1',
          nextFireAt: T0 + 120 * SECOND,
          runs: 4,
          lastFireAt: T0 + 90 * SECOND,
        },
      },
    ]);
    expect(run.totals).toMatchObject({ notesRead: 1, notesWritten: 1, staleNotes: 0 });
  });

  it('reports how late past fires were sent and gives them their start deadline', async () => {
    // Prepare: the fire at T0 was missed by 5 s; misfire grace 10 s
    const { queue, dispatch } = await notedSchedule({
      now: T0 + 5 * SECOND,
      overrides: { misfireGraceSeconds: 10 },
    });

    // Act
    const { summaries } = await dispatch();

    // Assess
    expect(summaries[0]?.fireLagMs).toEqual([5 * SECOND]);
    expect(queue.sent[0]?.job).toMatchObject({ fireTime: T0, runAt: T0, startDeadline: T0 + 10 * SECOND });
    expect(queue.sent[0]?.delaySeconds).toBe(0);
  });

  it('writes the note again a few buckets on when a send partly failed, for the same fires under the same ids', async () => {
    // Prepare: the second of the chunk's fires is refused by the queue
    const { queue, dispatch, written, run, clock } = await notedSchedule({ now: T0 - 150 * SECOND });
    queue.failWhen = (message) => message.job.fireTime === T0 + 30 * SECOND;

    // Act
    const outcome = await dispatch();

    // Assess: no successor; the note itself written again where the next tick reads it
    expect(outcome.summaries[0]).toMatchObject({ jobsSent: 3, sendFailures: 1 });
    expect(outcome.heldAt).toBeUndefined();
    const again = await written();
    expect(again.map((note) => note.entry)).toEqual([
      { scheduleId: ID, chain: 'c1', nextFireAt: T0, runs: 0, lastFireAt: null },
    ]);
    expect(again[0]?.bucket).toBeGreaterThanOrEqual(firstOpenBucket(DEFAULT_NOTE_GRID, clock.now()));
    expect(run.totals).toMatchObject({ notesRetried: 1, notesWritten: 1 });
  });

  it('reports every fire as not sent when the queue throws, and writes the note again', async () => {
    const { queue, dispatch, written } = await notedSchedule({ now: T0 - 150 * SECOND });
    queue.send = async () => {
      throw new Error('connect ECONNREFUSED');
    };

    const outcome = await dispatch();

    expect(outcome.summaries[0]).toMatchObject({ jobsSent: 0, sendFailures: 4 });
    expect((await written()).map((note) => note.entry.nextFireAt)).toEqual([T0]);
  });

  it('holds the page when the schedules cannot be read: nothing is sent and the cursor must stay before the note', async () => {
    const { store, queue, dispatch, note } = await notedSchedule({ now: T0 - 150 * SECOND });
    store.readSchedules = async () => {
      throw new Error('store unavailable');
    };

    const outcome = await dispatch();

    expect(outcome).toEqual({ heldAt: note.bucket, summaries: [], removed: [] });
    expect(queue.sent).toEqual([]);
  });

  it('skips a note whose schedule names another chain, is paused, or is gone', async () => {
    for (const change of ['restarted', 'paused', 'removed'] as const) {
      const { store, queue, dispatch, run, clock } = await notedSchedule({ now: T0 - 150 * SECOND });
      const now = clock.now();
      if (change === 'removed') await store.removeSchedule(ID);
      if (change === 'paused') {
        await store.pauseSchedule({
          id: ID,
          now,
          position: { nextFireAt: T0, lastFireAt: null, runs: 0 },
          seenVersion: 1,
        });
      }
      if (change === 'restarted') {
        const start: DueNote = {
          bucket: firstOpenBucket(DEFAULT_NOTE_GRID, now),
          entry: { scheduleId: ID, chain: 'c2', nextFireAt: T0, runs: 0, lastFireAt: null },
        };
        await store.updateSchedule({
          id: ID,
          changes: { payload: { n: 2 } },
          now,
          expectedVersion: 1,
          restart: {
            position: { nextFireAt: T0, lastFireAt: null, runs: 0 },
            start: { chain: 'c2', note: start, writer: 'test.c2.0', now },
          },
        });
      }

      const outcome = await dispatch();

      expect({ change, outcome, sent: queue.sent }).toEqual({
        change,
        outcome: { summaries: [], removed: [] },
        sent: [],
      });
      expect(run.totals).toMatchObject({ notesRead: 1, staleNotes: 1, notesWritten: 0 });
    }
  });

  it('finishes a schedule whose trigger has no fire left before it sends that fire, and leaves its closing note', async () => {
    const { store, queue, dispatch, written } = await notedSchedule({
      now: T0 - 150 * SECOND,
      nextFireAt: T0 + 10 * SECOND,
      overrides: { trigger: { type: 'date', run_at: new Date(T0 + 10 * SECOND).toISOString() } },
    });
    let finishedWhenSent: boolean | undefined;
    const send = queue.send.bind(queue);
    queue.send = async (messages) => {
      finishedWhenSent = (await store.getSchedule(ID))?.nextFireAt === null;
      return send(messages);
    };

    const { summaries } = await dispatch();

    expect(finishedWhenSent).toBe(true);
    expect(summaries[0]).toMatchObject({
      jobsSent: 1,
      nextFireAt: null,
      finished: { nextFireAt: null, runs: 1 },
    });
    expect(queue.sent.map((message) => message.delaySeconds)).toEqual([160]);
    expect(await store.getSchedule(ID)).toMatchObject({
      nextFireAt: null,
      lastFireAt: T0 + 10 * SECOND,
      runs: 1,
    });
    // No successor: the closing note (ADR 0011), a minute after the last fire (this id's phase is 0).
    expect(await written()).toEqual([
      {
        bucket: bucket(T0 + 70 * SECOND),
        entry: {
          scheduleId: ID,
          chain: 'c1',
          nextFireAt: T0 + 10 * SECOND + 1,
          runs: 1,
          lastFireAt: T0 + 10 * SECOND,
        },
      },
    ]);
  });

  it('sends at most maxFiresPerPlan fires; the successor note carries the rest', async () => {
    // Prepare: a note read late, 90 s of fires every second behind it; plans of 10 fires
    const { queue, dispatch, written } = await notedSchedule({
      now: T0 + 90 * SECOND,
      overrides: {
        coalesce: 'all',
        trigger: { type: 'interval', seconds: 1, start_at: new Date(T0).toISOString() },
      },
      maxFiresPerPlan: 10,
    });

    const { summaries } = await dispatch();

    expect(queue.sent.map((message) => message.job.fireTime)).toEqual(
      Array.from({ length: 10 }, (_, n) => T0 + n * SECOND),
    );
    expect(summaries[0]).toMatchObject({ jobsSent: 10, nextFireAt: T0 + 10 * SECOND });
    expect((await written()).map((note) => note.entry)).toEqual([
      {
        scheduleId: ID,
        chain: 'c1',
        nextFireAt: T0 + 10 * SECOND,
        runs: 10,
        lastFireAt: T0 + 9 * SECOND,
      },
    ]);
  });
});
