import type { EpochMs } from '../../../core/clock';
import { ValidationError } from '../../../core/errors';
import { isoUtc } from '../../../core/instants';
import {
  anchorIntervals,
  compileTrigger,
  MaxIterationsReachedError,
  parseTrigger,
  type TriggerSpec,
} from '../../../core/triggers';
import type { ResolvedTrigger } from './input-check';

/**
 * Parses a trigger from the caller, anchors its intervals at `now` ({@link anchorIntervals}), and
 * finds its first fire time at or after `now`. A trigger with no fire time left (a `date` in the past,
 * an `end_at` that has passed, `and` triggers that never fire together) is rejected: it would never run.
 *
 * @throws ValidationError naming each problem under `path` (`trigger.expression: …`).
 */
export function resolveTrigger(input: unknown, path: string, now: EpochMs): ResolvedTrigger {
  const trigger = anchorIntervals(parseTrigger(input, path), now);
  const nextFireAt = searchingFireTimes(path, () => compileTrigger(trigger).next(now));
  if (nextFireAt === undefined) {
    throw ValidationError.single(
      path,
      `has no fire time at or after now (${isoUtc(now)}); ${finishedHint(trigger)}`,
    );
  }
  return { trigger, nextFireAt };
}

/** Runs a search for fire times; an `and` trigger whose triggers never coincide is a problem at `path`. */
export function searchingFireTimes<Found>(path: string, search: () => Found): Found {
  try {
    return search();
  } catch (error) {
    if (error instanceof MaxIterationsReachedError) throw ValidationError.single(path, error.message);
    throw error;
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
    case 'eventbridge':
      if (trigger.expression.startsWith('at(')) {
        return `its ${trigger.expression} has passed; to run a job once now, use add_job`;
      }
      return trigger.end_at === undefined
        ? 'the last year its expression names has passed'
        : 'its end has passed';
    default:
      return 'its end has passed';
  }
}
