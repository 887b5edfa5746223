import type { EpochMs } from '../../core/clock';
import { ValidationError } from '../../core/errors';
import { isoUtc } from '../../core/instants';
import { anchorIntervals, compileTrigger, parseTrigger, type TriggerSpec } from '../../core/triggers';
import type { ResolvedTrigger } from './input-check';

/**
 * Parses a trigger from the caller, anchors its intervals at `now` ({@link anchorIntervals}), and
 * finds its first fire time at or after `now`. A trigger with no fire time left (a `date` in the past, an `end_at` that
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
