import type { TriggerSpec } from '../triggers';

const INTERVAL_UNITS = [
  ['weeks', 'w'],
  ['days', 'd'],
  ['hours', 'h'],
  ['minutes', 'm'],
  ['seconds', 's'],
] as const;

const CALENDAR_UNITS = ['years', 'months', 'weeks', 'days'] as const;

const twoDigits = (value: number) => String(value).padStart(2, '0');

/**
 * A trigger in one short line, for the CLI's tables and the dashboard: `cron 0 9 * * MON-FRI`,
 * `every 1h30m`, `every 1 month at 09:00`, `once at 2026-05-01T07:30:00Z`, `or(2 triggers)`. The
 * time zone is shown beside it.
 *
 * @example
 * describeTrigger({ type: 'interval', minutes: 90 }); // 'every 90m'
 */
export function describeTrigger(trigger: TriggerSpec): string {
  switch (trigger.type) {
    case 'cron':
      return `cron ${trigger.expression}`;
    case 'interval': {
      const parts = INTERVAL_UNITS.flatMap(([unit, short]) => {
        const value = trigger[unit];
        return value ? [`${value}${short}`] : [];
      });
      return `every ${parts.join('')}`;
    }
    case 'calendar_interval': {
      const steps = CALENDAR_UNITS.flatMap((unit) => {
        const value = trigger[unit];
        return value ? [`${value} ${value === 1 ? unit.slice(0, -1) : unit}`] : [];
      });
      const time = `${twoDigits(trigger.hour ?? 0)}:${twoDigits(trigger.minute ?? 0)}`;
      const seconds = trigger.second ? `:${twoDigits(trigger.second)}` : '';
      return `every ${steps.join(' ')} at ${time}${seconds}`;
    }
    case 'date':
      return `once at ${trigger.run_at}`;
    case 'eventbridge':
      return `eventbridge ${trigger.expression}`;
    case 'and':
    case 'or':
      return `${trigger.type}(${trigger.triggers.length} trigger${trigger.triggers.length === 1 ? '' : 's'})`;
  }
}
