import type { EpochMs } from '../clock';
import { ValidationError } from '../errors';
import { quote } from '../quote';
import { MAX_WALL_TIME, MS_PER_HOUR, MS_PER_MINUTE, MS_PER_SECOND } from './calendar';
import { calendarIntervalFireTimes } from './calendar-interval-source';
import { allOf, anyOf, DEFAULT_MAX_ITERATIONS, DEFAULT_THRESHOLD_SECONDS } from './combined-sources';
import { parseCronExpression } from './cron/cron-expression';
import { cronFireTimes } from './cron/cron-source';
import { parseEventBridgeExpression } from './eventbridge/expression';
import { eventBridgeFireTimes } from './eventbridge/source';
import { type FireTimeSource, withinWindow } from './fire-time-source';
import { intervalFireTimes } from './interval-source';
import { intervalMs, type TriggerSpec } from './schema';
import { type Parsed, parseIsoDate, parseIsoInstant } from './timestamps';
import { isKnownTimeZone, type ZoneRules, zoneRules } from './zones';

/**
 * Turns a trigger into its fire times. Parsing (cron expression, zone, timestamps) happens once,
 * here; `next()` on the result only computes. Expects a spec that passed {@link parseTrigger};
 * throws `ValidationError` for one that did not.
 *
 * @example
 * const source = compileTrigger({ type: 'cron', expression: '0 9 * * MON-FRI', timezone: 'Europe/Berlin' });
 * source.next(Date.parse('2026-03-27T08:00:01Z')); // 2026-03-30T07:00:00Z (Monday 09:00 CEST)
 */
export function compileTrigger(spec: TriggerSpec): FireTimeSource {
  const source = withinWindow(compileAt(spec, 'trigger'), undefined, MAX_WALL_TIME - 1);
  return {
    next(fromInclusive) {
      if (!Number.isFinite(fromInclusive)) throw new RangeError(`not an instant: ${fromInclusive}`);
      return source.next(fromInclusive);
    },
  };
}

function compileAt(spec: TriggerSpec, path: string): FireTimeSource {
  switch (spec.type) {
    case 'cron': {
      const schedule = parsedOrThrow(parseCronExpression(spec.expression), `${path}.expression`);
      const source = cronFireTimes(schedule, zoneAt(spec.timezone, `${path}.timezone`));
      return withinWindow(
        source,
        optionalInstant(spec.start_at, `${path}.start_at`),
        optionalInstant(spec.end_at, `${path}.end_at`),
      );
    }
    case 'interval': {
      const startAt = optionalInstant(spec.start_at, `${path}.start_at`);
      const periodMs = intervalMs(spec);
      if (!(periodMs > 0))
        throw ValidationError.single(
          path,
          'at least one of weeks, days, hours, minutes, seconds must be greater than 0',
        );
      return withinWindow(
        intervalFireTimes(startAt ?? 0, periodMs),
        startAt,
        optionalInstant(spec.end_at, `${path}.end_at`),
      );
    }
    case 'calendar_interval': {
      const step = {
        months: (spec.years ?? 0) * 12 + (spec.months ?? 0),
        days: (spec.weeks ?? 0) * 7 + (spec.days ?? 0),
      };
      if (step.months <= 0 && step.days <= 0)
        throw ValidationError.single(
          path,
          'at least one of years, months, weeks, days must be greater than 0',
        );
      return calendarIntervalFireTimes({
        step,
        startDay: parsedOrThrow(parseIsoDate(spec.start_date), `${path}.start_date`),
        endDay:
          spec.end_date === undefined
            ? undefined
            : parsedOrThrow(parseIsoDate(spec.end_date), `${path}.end_date`),
        timeOfDayMs:
          (spec.hour ?? 0) * MS_PER_HOUR +
          (spec.minute ?? 0) * MS_PER_MINUTE +
          (spec.second ?? 0) * MS_PER_SECOND,
        zone: zoneAt(spec.timezone, `${path}.timezone`),
      });
    }
    case 'date': {
      const runAt = parsedOrThrow(parseIsoInstant(spec.run_at), `${path}.run_at`);
      return { next: (fromInclusive) => (runAt >= fromInclusive ? runAt : undefined) };
    }
    case 'and': {
      const children = spec.triggers.map((child, index) => compileAt(child, `${path}.triggers[${index}]`));
      const thresholdMs = (spec.threshold_seconds ?? DEFAULT_THRESHOLD_SECONDS) * MS_PER_SECOND;
      return allOf(children, thresholdMs, spec.max_iterations ?? DEFAULT_MAX_ITERATIONS);
    }
    case 'or':
      return anyOf(spec.triggers.map((child, index) => compileAt(child, `${path}.triggers[${index}]`)));
    case 'eventbridge':
      return eventBridgeFireTimes(
        parsedOrThrow(parseEventBridgeExpression(spec.expression), `${path}.expression`),
        zoneAt(spec.timezone, `${path}.timezone`),
        optionalInstant(spec.start_at, `${path}.start_at`),
        optionalInstant(spec.end_at, `${path}.end_at`),
      );
  }
}

/**
 * The IANA zone to show a trigger's fire times in: its `timezone` (`UTC` when absent); for
 * `interval` and `date`, `UTC`; for `and`/`or`, the first child (depth first) that names a zone.
 *
 * @example
 * triggerTimezone({ type: 'or', triggers: [{ type: 'interval', hours: 1 },
 *   { type: 'cron', expression: '0 9 * * *', timezone: 'Europe/Berlin' }] }); // 'Europe/Berlin'
 */
export function triggerTimezone(spec: TriggerSpec): string {
  return namedZone(spec) ?? 'UTC';
}

function namedZone(spec: TriggerSpec): string | undefined {
  switch (spec.type) {
    case 'cron':
    case 'calendar_interval':
    case 'eventbridge':
      return spec.timezone;
    case 'interval':
    case 'date':
      return undefined;
    case 'and':
    case 'or':
      for (const child of spec.triggers) {
        const zone = namedZone(child);
        if (zone !== undefined) return zone;
      }
      return undefined;
  }
}

/**
 * The first `count` fire times at or after `fromInclusive`; fewer when the trigger finishes.
 *
 * @example
 * previewFireTimes({ type: 'interval', minutes: 15 }, Date.parse('2026-01-01T00:05:00Z'), 2);
 * // [2026-01-01T00:15:00Z, 2026-01-01T00:30:00Z] as epoch ms
 */
export function previewFireTimes(spec: TriggerSpec, fromInclusive: EpochMs, count: number): EpochMs[] {
  const source = compileTrigger(spec);
  const fires: EpochMs[] = [];
  let from = fromInclusive;
  while (fires.length < count) {
    const fire = source.next(from);
    if (fire === undefined) break;
    fires.push(fire);
    from = fire + 1;
  }
  return fires;
}

function parsedOrThrow<T>(parsed: Parsed<T>, path: string): T {
  if (!parsed.ok) throw ValidationError.single(path, parsed.problem);
  return parsed.value;
}

function optionalInstant(text: string | undefined, path: string): EpochMs | undefined {
  return text === undefined ? undefined : parsedOrThrow(parseIsoInstant(text), path);
}

function zoneAt(name: string | undefined, path: string): ZoneRules {
  if (name === undefined) return zoneRules('UTC');
  if (!isKnownTimeZone(name)) throw ValidationError.single(path, `unknown time zone ${quote(name)}`);
  return zoneRules(name);
}
