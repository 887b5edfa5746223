import { expect } from 'vitest';
import type { EpochMs } from '../../../lib/core/clock';
import type { ScheduleDefinition } from '../../../lib/core/model/schedule';
import { bucketOf, DEFAULT_NOTE_GRID } from '../../../lib/core/planning/note-chunks';
import type { DueNote, DueNotesPosition } from '../../../lib/core/ports/due-notes';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import type { TriggerSpec } from '../../../lib/core/triggers';
import { compileTrigger } from '../../../lib/core/triggers';
import type { RuntimeConfig } from '../../../lib/runtime/config';
import { runTick, type TickSummary } from '../../../lib/runtime/tick/run-tick';
import { SECOND, scheduleDefinition, T0, type TestRuntime, testRuntime } from '../support';

export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;

export function interval(seconds: number, endAt?: EpochMs): TriggerSpec {
  return {
    type: 'interval',
    seconds,
    start_at: new Date(T0).toISOString(),
    ...(endAt !== undefined && { end_at: new Date(endAt).toISOString() }),
  } as unknown as TriggerSpec;
}

/** A message sent by a tick, and when. */
export interface Sent {
  at: EpochMs;
  message: JobMessage;
}

/**
 * A runtime with due notes on (the store's 16 shards), whose ticks
 * are run one at a time with `tick` (or several at once with `ticks`), recording every message sent.
 */
export function notesRuntime(config: Partial<RuntimeConfig> = {}) {
  const runtime: TestRuntime = testRuntime({ dueNotes: true, ...config });
  const sent: Sent[] = [];
  const summaries: TickSummary[] = [];
  const collect = () => {
    for (const message of runtime.queue.drain()) sent.push({ at: runtime.clock.now(), message });
  };
  const tick = async () => {
    const summary = await runTick(runtime.deps, { lastCounterRepairAt: runtime.clock.now() });
    summaries.push(summary);
    collect();
    return summary;
  };
  const ticks = async (count: number) => {
    const all = await Promise.all(
      Array.from({ length: count }, () =>
        runTick(runtime.deps, { lastCounterRepairAt: runtime.clock.now() }),
      ),
    );
    summaries.push(...all);
    collect();
    return all;
  };
  /** Ticks every minute from the clock's time through `until`. */
  const tickEveryMinuteUntil = async (until: EpochMs) => {
    while (runtime.clock.now() <= until) {
      await tick();
      runtime.clock.advance(MINUTE);
    }
  };
  const add = (id: string, trigger: TriggerSpec, overrides: Partial<ScheduleDefinition> = {}) =>
    runtime.store.addSchedule({
      schedule: scheduleDefinition(id, { trigger, coalesce: 'all', ...overrides }),
      nextFireAt: compileTrigger(trigger).next(runtime.clock.now()) ?? null,
      conflictPolicy: 'exception',
      now: runtime.clock.now(),
    });
  const sentOf = (scheduleId: string) => sent.filter((s) => s.message.job.scheduleId === scheduleId);
  /** Every note of every shard in the buckets from an hour before T0 through `now`'s. */
  const allNotes = async (now: EpochMs): Promise<DueNote[]> => {
    const notes: DueNote[] = [];
    for (let shard = 0; shard < runtime.store.dueShards; shard++) {
      let from: DueNotesPosition | undefined;
      do {
        const page = await runtime.store.readDueNotes({
          shard,
          afterBucket: bucketOf(DEFAULT_NOTE_GRID, T0) - 360,
          now,
          limit: 100,
          ...(from && { from }),
        });
        notes.push(...page.notes);
        from = page.next;
      } while (from);
    }
    return notes;
  };
  return { ...runtime, sent, summaries, tick, ticks, tickEveryMinuteUntil, add, sentOf, allNotes };
}

/** The fire times of `scheduleId`'s trigger in `[from, through]`. */
export function fireTimes(trigger: TriggerSpec, from: EpochMs, through: EpochMs): EpochMs[] {
  const source = compileTrigger(trigger);
  const times: EpochMs[] = [];
  for (let next = source.next(from); next !== undefined && next <= through; next = source.next(next + 1)) {
    times.push(next);
  }
  return times;
}

/**
 * The distinct fires sent (dedupe at claim is by job id) are exactly the trigger's fires through
 * `through` (none lost, none outside the trigger), and each id names its fire.
 */
export function expectEveryFireOnce(sent: readonly Sent[], trigger: TriggerSpec, through: EpochMs): void {
  const fires = new Map<string, EpochMs>();
  for (const { message } of sent) fires.set(message.job.id, message.job.fireTime as EpochMs);
  const sentTimes = [...new Set(fires.values())].filter((time) => time <= through).sort((a, b) => a - b);
  expect(sentTimes).toEqual(fireTimes(trigger, T0, through));
  expect(fires.size).toBe(new Set(fires.values()).size);
  const all = fireTimes(trigger, T0, Math.max(through, ...fires.values()));
  expect([...fires.values()].every((time) => all.includes(time))).toBe(true);
}
