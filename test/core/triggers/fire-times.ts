import { DateTime } from 'luxon';
import { parseTrigger, previewFireTimes, triggerTimezone } from '../../../lib/core/triggers';

/** The first `count` fire times at or after `from`, as UTC ISO strings. */
export function utcFireTimes(trigger: unknown, from: string, count: number): string[] {
  return previewFireTimes(parseTrigger(trigger), Date.parse(from), count).map((fire) =>
    new Date(fire).toISOString(),
  );
}

/** The first `count` fire times at or after `from`, as ISO strings with offsets in the trigger's zone. */
export function localFireTimes(trigger: unknown, from: string, count: number): string[] {
  const spec = parseTrigger(trigger);
  const zone = triggerTimezone(spec);
  return previewFireTimes(spec, Date.parse(from), count).map(
    (fire) => DateTime.fromMillis(fire, { zone }).toISO({ suppressMilliseconds: true }) ?? '',
  );
}
