import { previewScheduleParams } from '../../../core/admin-contract/schedules';
import { ScheduleNotFoundError } from '../../../core/errors';
import { isoInZone, isoUtc } from '../../../core/instants';
import {
  anchorIntervals,
  parseTrigger,
  previewFireTimes,
  type TriggerSpec,
  triggerTimezone,
} from '../../../core/triggers';
import { collectIssues } from '../../../core/validation';
import type { ActionHandler } from '../context';
import { InputCheck } from '../validation/input-check';
import { searchingFireTimes } from '../validation/trigger-input';

/**
 * `preview_schedule`: the next `count` fire times (default 10, at most 1000) from `from` (default now)
 * of a trigger, or of a stored schedule's trigger, each in UTC and in the trigger's timezone.
 * An interval without `start_at` is anchored at now, as `add_schedule` would store it.
 */
export const previewSchedule: ActionHandler<'preview_schedule'> = async (raw, context) => {
  const check = new InputCheck(context.deps.tasks);
  const parsed = check.params(previewScheduleParams, raw);
  if (raw.id === undefined && raw.trigger === undefined) {
    check.problem('', 'give trigger (to try one out) or id (of a stored schedule)');
  } else if (raw.id !== undefined && raw.trigger !== undefined) {
    check.problem('', 'give trigger or id, not both');
  }
  let trigger: TriggerSpec | undefined;
  if (raw.trigger !== undefined) {
    const outcome = collectIssues(() => anchorIntervals(parseTrigger(raw.trigger, 'trigger'), context.now));
    if ('issues' in outcome) for (const issue of outcome.issues) check.problem(issue.path, issue.message);
    else trigger = outcome.value;
  }
  const { params } = check.valid({ params: parsed });

  if (trigger === undefined) {
    const id = params.id ?? '';
    const schedule = await context.deps.scheduleStore.getSchedule(id);
    if (!schedule) throw new ScheduleNotFoundError(id);
    trigger = schedule.trigger;
  }
  const from = params.from ?? context.now;
  const timezone = triggerTimezone(trigger);
  const previewed: TriggerSpec = trigger;
  const fireTimes = searchingFireTimes('trigger', () => previewFireTimes(previewed, from, params.count));
  return {
    trigger,
    timezone,
    from: isoUtc(from),
    fire_times: fireTimes.map((instant) => ({ utc: isoUtc(instant), local: isoInZone(instant, timezone) })),
  };
};
