import { type Command, InvalidArgumentError, Option, type OptionValues } from '@commander-js/extra-typings';
import { UsageError } from '../../command';
import { collect, definedFields, jsonValue, numberField, secondsField } from '../../option-values';

const TRIGGER_FLAGS = ['cron', 'every', 'at', 'trigger'] as const;
const INTERVAL_UNITS = ['weeks', 'days', 'hours', 'minutes', 'seconds'] as const;
const DURATION_PARTS = /^(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/** A trigger flag: at most one of --cron, --every, --at and --trigger. */
function triggerOption<Flags extends string>(flags: Flags, description: string, name: string) {
  return new Option(flags, description).conflicts(TRIGGER_FLAGS.filter((other) => other !== name));
}

/** The flags that set a schedule's fields, shared by `schedules add` and `schedules update`. */
export function withScheduleFieldOptions<Args extends unknown[], Opts extends OptionValues>(
  command: Command<Args, Opts>,
) {
  return command
    .option('--task <task>', 'the task to run (a module in functions/)')
    .addOption(
      triggerOption('--cron <expression>', 'a cron trigger (5 fields, or 6 with seconds first)', 'cron'),
    )
    .option('--timezone <zone>', 'IANA time zone of --cron (default: UTC)')
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
    .option('--start-at <ISO>', 'first instant of a --cron or --every trigger (inclusive)')
    .option('--end-at <ISO>', 'last instant of a --cron or --every trigger (inclusive)')
    .option('--payload <json>', 'the JSON payload the task receives (default: {})', jsonValue)
    .option('--tag <tag>', 'a tag (repeat for more)', collect)
    .option('--coalesce <policy>', 'latest (default), earliest or all: which missed fire times run')
    .option('--misfire-grace <secs>', 'how late a fire may still start: 90, 10m, or none', graceField)
    .option('--jitter <secs>', 'start each fire up to this much later, at random (max 1h)', secondsField)
    .option(
      '--max-runs <n>',
      'finish the schedule after n fires (update: none removes the limit)',
      numberField,
    )
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
    keep_finished: '--keep-finished',
    conflict_policy: '--conflict',
    expected_version: '--expected-version',
    ...(triggerFlag === undefined ? {} : { trigger: `--${triggerFlag}` }),
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
    misfire_grace_seconds: options.misfireGrace,
    max_jitter_seconds: options.jitter,
    // `none` is mapped here: commander turns an option parser's null into ''.
    max_runs: options.maxRuns === 'none' ? null : options.maxRuns,
    keep_finished: options.keepFinished,
  });
}

/** One trigger from --cron, --every, --at or --trigger (commander allows one); undefined when none is given. */
function triggerFromOptions(options: ScheduleFieldOptions): unknown {
  const { cron, every, at, trigger, timezone } = options;
  const window = definedFields({ start_at: options.startAt, end_at: options.endAt });
  if (timezone !== undefined && cron === undefined) {
    throw new UsageError('--timezone: only applies to --cron; put "timezone" in the --trigger JSON');
  }
  if (Object.keys(window).length > 0 && cron === undefined && every === undefined) {
    throw new UsageError('--start-at and --end-at apply to --cron and --every only');
  }
  if (cron !== undefined) {
    return { type: 'cron', expression: cron, ...(timezone === undefined ? {} : { timezone }), ...window };
  }
  if (every !== undefined) return { type: 'interval', ...every, ...window };
  if (at !== undefined) return { type: 'date', run_at: at };
  return trigger;
}

/** `--misfire-grace none` clears the grace; anything else is seconds. */
function graceField(text: string): number | string | null {
  return text === 'none' ? null : secondsField(text);
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
