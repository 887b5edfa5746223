import { type Command, InvalidArgumentError, Option, type OptionValues } from '@commander-js/extra-typings';
import { UsageError } from '../../command';
import {
  collect,
  definedFields,
  graceField,
  jsonValue,
  noneAsNull,
  numberField,
  secondsField,
} from '../../option-values';
import { OVERRIDE_FIELD_FLAGS, overrideFields, withOverrideOptions } from '../override-options';

const TRIGGER_FLAGS = ['cron', 'scheduleExpression', 'every', 'at', 'trigger'] as const;
/** Each trigger option's flag as typed. */
const FLAG_OF: Readonly<Record<(typeof TRIGGER_FLAGS)[number], string>> = {
  cron: '--cron',
  scheduleExpression: '--schedule-expression',
  every: '--every',
  at: '--at',
  trigger: '--trigger',
};
const INTERVAL_UNITS = ['weeks', 'days', 'hours', 'minutes', 'seconds'] as const;
const DURATION_PARTS = /^(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/** A trigger flag: at most one of --cron, --schedule-expression, --every, --at and --trigger. */
function triggerOption<Flags extends string>(flags: Flags, description: string, name: string) {
  return new Option(flags, description).conflicts(TRIGGER_FLAGS.filter((other) => other !== name));
}

/** The flags that set a schedule's fields, shared by `schedules add` and `schedules update`. */
export function withScheduleFieldOptions<Args extends unknown[], Opts extends OptionValues>(
  command: Command<Args, Opts>,
) {
  return withOverrideOptions(command)
    .option('--task <task>', 'the task to run (a module in functions/)')
    .addOption(
      triggerOption('--cron <expression>', 'a cron trigger (5 fields, or 6 with seconds first)', 'cron'),
    )
    .addOption(
      triggerOption(
        '--schedule-expression <expression>',
        "an EventBridge Scheduler expression: 'cron(0 10 ? * MON-FRI *)', 'rate(5 minutes)', 'at(2026-05-01T09:30:00)'",
        'scheduleExpression',
      ),
    )
    .option('--timezone <zone>', 'IANA time zone of --cron or --schedule-expression (default: UTC)')
    .addOption(
      triggerOption('--every <duration>', 'an interval trigger: 30s, 5m, 1h30m, 2d, 1w', 'every').argParser(
        intervalUnits,
      ),
    )
    .addOption(triggerOption('--at <ISO>', 'a one-off (date) trigger, with Z or an offset', 'at'))
    .addOption(
      triggerOption('--trigger <json>', 'any trigger as JSON (docs/triggers.md)', 'trigger').argParser(
        jsonValue,
      ),
    )
    .option(
      '--start-at <ISO>',
      'first instant of a --cron, --schedule-expression or --every trigger (inclusive)',
    )
    .option(
      '--end-at <ISO>',
      'last instant of a --cron, --schedule-expression or --every trigger (inclusive)',
    )
    .option('--payload <json>', 'the JSON payload the task receives (default: {})', jsonValue)
    .option('--tag <tag>', 'a tag (repeat for more)', collect)
    .option('--coalesce <policy>', 'latest (default), earliest or all: which missed fire times run')
    .option('--misfire-grace <secs>', 'how late a fire may still start: 90, 10m, or none', graceField)
    .option('--jitter <secs>', 'start each fire up to this much later, at random (max 1h)', secondsField)
    .option('--description <text>', "what the schedule is for, up to 512 characters ('' clears it)")
    .option(
      '--priority <level>',
      'normal (default) or critical: its jobs start before normal ones waiting for their task (update: none clears it)',
    )
    .option('--max-runs <n>', 'finish the schedule after n fires (update: none removes the limit)', runsField)
    .option('--keep-finished', 'keep the schedule once it finished (default: removed after its last job)')
    .option('--no-keep-finished', 'remove the schedule once it finished and its last job ended');
}

/** What the schedule field flags hold once parsed. */
export type ScheduleFieldOptions = ReturnType<
  ReturnType<typeof withScheduleFieldOptions<[], OptionValues>>['opts']
>;

/** The admin API's field for each flag, so its `invalid_input` paths point back at what was typed. */
export function scheduleFieldFlags(options: ScheduleFieldOptions): Record<string, string> {
  const triggerFlag = TRIGGER_FLAGS.find((name) => options[name] !== undefined);
  return {
    id: '--id',
    task: '--task',
    payload: '--payload',
    tags: '--tag',
    coalesce: '--coalesce',
    misfire_grace_seconds: '--misfire-grace',
    max_jitter_seconds: '--jitter',
    max_runs: '--max-runs',
    priority: '--priority',
    keep_finished: '--keep-finished',
    conflict_policy: '--conflict',
    expected_version: '--expected-version',
    ...OVERRIDE_FIELD_FLAGS,
    ...(triggerFlag === undefined ? {} : { trigger: FLAG_OF[triggerFlag] }),
    ...(options.timezone === undefined ? {} : { 'trigger.timezone': '--timezone' }),
    ...(options.startAt === undefined ? {} : { 'trigger.start_at': '--start-at' }),
    ...(options.endAt === undefined ? {} : { 'trigger.end_at': '--end-at' }),
  };
}

/** The schedule fields the flags set; fields whose flag is absent are left out (so `update` changes only those). */
export function scheduleFields(options: ScheduleFieldOptions): Record<string, unknown> {
  return definedFields({
    task: options.task,
    trigger: triggerFromOptions(options),
    payload: options.payload,
    tags: options.tag,
    coalesce: options.coalesce,
    misfire_grace_seconds: noneAsNull(options.misfireGrace),
    max_jitter_seconds: options.jitter,
    description: options.description,
    max_runs: noneAsNull(options.maxRuns),
    priority: noneAsNull(options.priority),
    keep_finished: options.keepFinished,
    ...overrideFields(options),
  });
}

/** One trigger from --cron, --schedule-expression, --every, --at or --trigger (commander allows one); undefined when none is given. */
function triggerFromOptions(options: ScheduleFieldOptions): unknown {
  const { cron, scheduleExpression, every, at, trigger, timezone } = options;
  const window = definedFields({ start_at: options.startAt, end_at: options.endAt });
  const expression = cron ?? scheduleExpression;
  if (timezone !== undefined && expression === undefined) {
    throw new UsageError(
      '--timezone: only applies to --cron and --schedule-expression; put "timezone" in the --trigger JSON',
    );
  }
  if (Object.keys(window).length > 0 && expression === undefined && every === undefined) {
    throw new UsageError('--start-at and --end-at apply to --cron, --schedule-expression and --every only');
  }
  if (expression !== undefined) {
    const type = cron === undefined ? 'eventbridge' : 'cron';
    return { type, expression, ...(timezone === undefined ? {} : { timezone }), ...window };
  }
  if (every !== undefined) return { type: 'interval', ...every, ...window };
  if (at !== undefined) return { type: 'date', run_at: at };
  return trigger;
}

/** `--max-runs none` removes the limit (sent as `null`); anything else is sent as a number (the admin API checks it). */
function runsField(text: string): number | string {
  return text === 'none' ? text : numberField(text);
}

/** `1h30m` → `{ hours: 1, minutes: 30 }`; a plain number is seconds. */
function intervalUnits(text: string): Record<string, number> {
  if (/^\d+$/.test(text)) return { seconds: Number(text) };
  const match = DURATION_PARTS.exec(text);
  if (!match || text === '') {
    throw new InvalidArgumentError('Not a duration; use e.g. 30s, 5m, 1h30m, 2d or 1w.');
  }
  return Object.fromEntries(
    INTERVAL_UNITS.flatMap((unit, index) =>
      match[index + 1] === undefined ? [] : [[unit, Number(match[index + 1])]],
    ),
  );
}
