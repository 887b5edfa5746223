import { definedFields, type FlagValues, jsonFlag, list, numberField, secondsField, text } from '../../args';
import { UsageError } from '../../command';

/** The flags that set a schedule's fields, shared by `schedules add` and `schedules update`. */
export const SCHEDULE_FIELD_OPTIONS = {
  task: { type: 'string' },
  cron: { type: 'string' },
  timezone: { type: 'string' },
  every: { type: 'string' },
  at: { type: 'string' },
  trigger: { type: 'string' },
  'start-at': { type: 'string' },
  'end-at': { type: 'string' },
  payload: { type: 'string' },
  tag: { type: 'string', multiple: true },
  coalesce: { type: 'string' },
  'misfire-grace': { type: 'string' },
  jitter: { type: 'string' },
} as const;

export const SCHEDULE_FIELD_HELP = `  --task <task>             the task to run (a module in functions/)
  --cron '<expression>'     a cron trigger (5 fields, or 6 with seconds first)
  --timezone <zone>         IANA time zone of --cron (default UTC)
  --every <duration>        an interval trigger: 30s, 5m, 1h30m, 2d, 1w
  --at <ISO>                a one-off (date) trigger, with Z or an offset
  --trigger <json>          any trigger as JSON (docs/triggers.md)
  --start-at <ISO>          first instant of a --cron or --every trigger (inclusive)
  --end-at <ISO>            last instant of a --cron or --every trigger (inclusive)
  --payload <json>          the JSON payload the task receives (default {})
  --tag <tag>               a tag (repeat for more)
  --coalesce <policy>       latest (default), earliest or all: which missed fire times run
  --misfire-grace <secs>    how late a fire may still start: 90, 10m, or none
  --jitter <secs>           start each fire up to this much later, at random (max 1h)`;

const TRIGGER_FLAGS = ['cron', 'every', 'at', 'trigger'] as const;
const INTERVAL_UNITS = ['weeks', 'days', 'hours', 'minutes', 'seconds'] as const;
const DURATION_PARTS = /^(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/** The admin API's field for each flag, so its `invalid_input` paths point back at what was typed. */
export function scheduleFieldFlags(values: FlagValues): Record<string, string> {
  const triggerFlag = TRIGGER_FLAGS.find((name) => text(values, name) !== undefined);
  return {
    id: '--id',
    task: '--task',
    payload: '--payload',
    tags: '--tag',
    coalesce: '--coalesce',
    misfire_grace_seconds: '--misfire-grace',
    max_jitter_seconds: '--jitter',
    conflict_policy: '--conflict',
    expected_version: '--expected-version',
    ...(triggerFlag === undefined ? {} : { trigger: `--${triggerFlag}` }),
    ...(text(values, 'timezone') === undefined ? {} : { 'trigger.timezone': '--timezone' }),
    ...(text(values, 'start-at') === undefined ? {} : { 'trigger.start_at': '--start-at' }),
    ...(text(values, 'end-at') === undefined ? {} : { 'trigger.end_at': '--end-at' }),
  };
}

/** The schedule fields the flags set; fields whose flag is absent are left out (so `update` changes only those). */
export function scheduleFields(values: FlagValues): Record<string, unknown> {
  const payload = text(values, 'payload');
  const grace = text(values, 'misfire-grace');
  const jitter = text(values, 'jitter');
  const tags = list(values, 'tag');
  return definedFields({
    task: text(values, 'task'),
    trigger: triggerFromFlags(values),
    payload: payload === undefined ? undefined : jsonFlag('payload', payload),
    tags: tags.length > 0 ? tags : undefined,
    coalesce: text(values, 'coalesce'),
    misfire_grace_seconds: grace === undefined ? undefined : grace === 'none' ? null : secondsField(grace),
    max_jitter_seconds: jitter === undefined ? undefined : secondsField(jitter),
  });
}

/** `do-nothing` is accepted for `do_nothing`; other values go to the admin API as typed. */
export function conflictField(values: FlagValues): string | undefined {
  return text(values, 'conflict')?.replace(/-/g, '_');
}

export function expectedVersionField(values: FlagValues): number | string | undefined {
  const version = text(values, 'expected-version');
  return version === undefined ? undefined : numberField(version);
}

/** One trigger from --cron, --every, --at or --trigger (at most one of them); undefined when none is given. */
export function triggerFromFlags(values: FlagValues): unknown {
  const given = TRIGGER_FLAGS.filter((name) => text(values, name) !== undefined);
  if (given.length > 1) {
    throw new UsageError(`give one trigger, not ${given.map((name) => `--${name}`).join(' and ')}`);
  }
  const window = definedFields({ start_at: text(values, 'start-at'), end_at: text(values, 'end-at') });
  const timezone = text(values, 'timezone');
  const cron = text(values, 'cron');
  const every = text(values, 'every');
  const at = text(values, 'at');
  const json = text(values, 'trigger');
  if (timezone !== undefined && cron === undefined) {
    throw new UsageError('--timezone: only applies to --cron; put "timezone" in the --trigger JSON');
  }
  if (Object.keys(window).length > 0 && cron === undefined && every === undefined) {
    throw new UsageError('--start-at and --end-at apply to --cron and --every only');
  }
  if (cron !== undefined) {
    return { type: 'cron', expression: cron, ...(timezone === undefined ? {} : { timezone }), ...window };
  }
  if (every !== undefined) return { type: 'interval', ...intervalUnits(every), ...window };
  if (at !== undefined) return { type: 'date', run_at: at };
  if (json !== undefined) return jsonFlag('trigger', json);
  return undefined;
}

/** `1h30m` → `{ hours: 1, minutes: 30 }`; a plain number is seconds. */
function intervalUnits(text: string): Record<string, number> {
  if (/^\d+$/.test(text)) return { seconds: Number(text) };
  const match = DURATION_PARTS.exec(text);
  if (!match || text === '') {
    throw new UsageError(`--every: '${text}' is not a duration; use e.g. 30s, 5m, 1h30m, 2d or 1w`);
  }
  return Object.fromEntries(
    INTERVAL_UNITS.flatMap((unit, index) =>
      match[index + 1] === undefined ? [] : [[unit, Number(match[index + 1])]],
    ),
  );
}
