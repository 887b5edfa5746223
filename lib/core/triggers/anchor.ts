import type { EpochMs } from '../clock';
import { isoUtc } from '../instants';
import type { TriggerSpec } from './schema';

/**
 * Fills `start_at = now` into every interval trigger (and `rate(…)` eventbridge trigger) that has none, nested ones included (as APScheduler
 * does: the first fire is now, then every interval). The anchored trigger is what gets stored, so a
 * schedule's fire times never depend on when something reads it.
 */
export function anchorIntervals(trigger: TriggerSpec, now: EpochMs): TriggerSpec {
  switch (trigger.type) {
    case 'interval':
      return trigger.start_at === undefined ? { ...trigger, start_at: isoUtc(now) } : trigger;
    case 'eventbridge':
      // A rate(…) without StartDate starts when the schedule is created, in EventBridge too.
      return trigger.expression.startsWith('rate(') && trigger.start_at === undefined
        ? { ...trigger, start_at: isoUtc(now) }
        : trigger;
    case 'and':
    case 'or':
      return { ...trigger, triggers: trigger.triggers.map((child) => anchorIntervals(child, now)) };
    default:
      return trigger;
  }
}
