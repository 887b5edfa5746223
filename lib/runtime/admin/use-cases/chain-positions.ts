import { type EpochMs, latestOf } from '../../../core/clock';
import { reachedMaxRuns, type Schedule } from '../../../core/model/schedule';
import { firesSentAhead } from '../../../core/planning/fires-sent-ahead';
import type { SchedulePosition } from '../../../core/ports/schedule-store';
import { compileTrigger, type TriggerSpec } from '../../../core/triggers';

/** Where a change leaves a schedule, and (for one that becomes capped) its count of started runs. */
export interface ChainPosition {
  position: SchedulePosition;
  startedRuns?: number;
}

/**
 * What a schedule has run when a change cancels the fires its chain sent ahead (ADR 0008): a pause, a
 * new trigger, a replace. `before` is the schedule as it stood (read with its live note). The fires
 * sent ahead, due after `now`, are cancelled when they come up (their check reads the changed schedule):
 * they leave `runs` and `lastFireAt`. With `max_runs` (`capped`), the runs are the fires that started
 * (`startedRuns`: exact, whatever the chain sent); a schedule that becomes capped starts that count from
 * the fires its chain dispatched before now.
 */
export function runsSoFar(
  before: Schedule,
  now: EpochMs,
  capped: boolean,
): { lastFireAt: EpochMs | null; runs: number; startedRuns?: number } {
  const ahead = firesSentAhead(before, now);
  const lastFireAt = ahead.count === 0 ? before.lastFireAt : ahead.lastCounted;
  const dispatched = Math.max(0, before.runs - ahead.count);
  if (!capped) return { lastFireAt, runs: dispatched };
  if (before.maxRuns !== null) return { lastFireAt, runs: before.startedRuns };
  return { lastFireAt, runs: dispatched, startedRuns: dispatched };
}

/**
 * Where a new chain of `definition` starts: its trigger's first fire time from `from`, after what
 * `before` (the schedule it replaces or changes, read with its live note; none for a new one) has run. A
 * schedule whose `max_runs` those runs reach is finished from the start.
 */
export function chainPosition(
  definition: { trigger: TriggerSpec; maxRuns: number | null },
  from: EpochMs,
  before: Schedule | undefined,
  now: EpochMs,
): ChainPosition {
  const source = compileTrigger(definition.trigger);
  const first = source.next(from) ?? null;
  if (!before) return { position: { nextFireAt: first, lastFireAt: null, runs: 0 } };
  const capped = definition.maxRuns !== null;
  const { startedRuns, ...ran } = runsSoFar(before, now, capped);
  // Never a fire its runs count already (one due at this very instant, sent by the chain before; with
  // `max_runs`, one that started though due after the change began, before the change was written): its
  // job is the same, and the new chain would count it a second time.
  const last = capped ? latestOf(ran.lastFireAt, before.lastStartedFireAt) : ran.lastFireAt;
  const nextFireAt =
    first !== null && last !== null && first <= last ? (source.next(last + 1) ?? null) : first;
  const finished = reachedMaxRuns(ran.runs, definition.maxRuns);
  return {
    position: { ...ran, nextFireAt: finished ? null : nextFireAt },
    ...(startedRuns !== undefined && { startedRuns }),
  };
}
