import type { EpochMs } from '../../core/clock';
import { ValidationError } from '../../core/errors';
import { compileTrigger, parseTrigger, type TriggerSpec } from '../../core/triggers';
import type { ResolvedTrigger } from './input-check';
import { isoUtc } from './wire';

/**
 * Parses a trigger from the caller, anchors every `interval` without `start_at` at `now` (as
 * APScheduler does: the first fire is now, then every interval), and finds its first fire time at or
 * after `now`. The anchored trigger is what gets stored, so the schedule's fire times never depend on
 * when something reads it. A trigger with no fire time left (a `date` in the past, an `end_at` that
 * has passed) is rejected: it would never run.
 *
 * @throws ValidationError naming each problem under `path` (`trigger.expression: …`).
 */
export function resolveTrigger(input: unknown, path: string, now: EpochMs): ResolvedTrigger {
  const trigger = anchorIntervals(parseTrigger(input, path), now);
  const nextFireAt = compileTrigger(trigger).next(now);
  if (nextFireAt === undefined) {
    throw ValidationError.single(
      path,
      `has no fire time at or after now (${isoUtc(now)}); ${finishedHint(trigger)}`,
    );
  }
  return { trigger, nextFireAt };
}

/** Fills `start_at = now` into every interval trigger that has none, nested ones included. */
export function anchorIntervals(trigger: TriggerSpec, now: EpochMs): TriggerSpec {
  switch (trigger.type) {
    case 'interval':
      return trigger.start_at === undefined ? { ...trigger, start_at: isoUtc(now) } : trigger;
    case 'and':
    case 'or':
      return { ...trigger, triggers: trigger.triggers.map((child) => anchorIntervals(child, now)) };
    default:
      return trigger;
  }
}

function finishedHint(trigger: TriggerSpec): string {
  switch (trigger.type) {
    case 'date':
      return `its run_at ${trigger.run_at} has passed; to run a job once now, use add_job`;
    case 'and':
      return 'its triggers never fire together again';
    case 'or':
      return 'none of its triggers fires again';
    default:
      return 'its end has passed';
  }
}
