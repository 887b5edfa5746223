import { type Command, InvalidArgumentError, type OptionValues } from '@commander-js/extra-typings';
import { definedFields, NONE, noneAsNull, numberField, secondsField } from '../option-values';

/**
 * The flags of per-schedule and per-job overrides of a task's run settings and of metadata, shared by
 * `schedules add`, `schedules update` and `jobs add`. `none` clears an override (in `update`).
 */

/** `--metadata team=ops` (repeatable) into `{ team: 'ops' }`; `--metadata none` clears it (in `update`). */
export function metadataEntry(
  text: string,
  previous: Record<string, string> | typeof NONE = {},
): Record<string, string> | typeof NONE {
  if (text === NONE) return NONE;
  const separator = text.indexOf('=');
  if (separator < 0) throw new InvalidArgumentError('Expected key=value (or none to clear).');
  return { ...(previous === NONE ? {} : previous), [text.slice(0, separator)]: text.slice(separator + 1) };
}

/** An override's value: `none` (kept, for `noneAsNull`) clears it; anything else is for the admin API to check. */
function overrideValue(parse: (text: string) => number | string) {
  return (text: string): number | string => (text === NONE ? NONE : parse(text));
}

export function withOverrideOptions<Args extends unknown[], Opts extends OptionValues>(
  command: Command<Args, Opts>,
) {
  return command
    .option(
      '--max-attempts <n>',
      "attempts in all, 1-100, instead of the task's retry.maxAttempts (none: the task's)",
      overrideValue(numberField),
    )
    .option(
      '--backoff-seconds <secs>',
      "delay before the second attempt, instead of the task's retry.backoffSeconds: 30, 5m",
      overrideValue(secondsField),
    )
    .option(
      '--timeout-seconds <secs>',
      "a shorter timeout than the task's timeoutSeconds: 30, 2m",
      overrideValue(secondsField),
    )
    .option(
      '--result-ttl-seconds <secs>',
      "how long results are kept, instead of the task's resultTtlSeconds: 3600, 7d",
      overrideValue(secondsField),
    )
    .option('--metadata <key=value>', 'a metadata entry (repeat for more)', metadataEntry);
}

type OverrideOptions = ReturnType<ReturnType<typeof withOverrideOptions<[], OptionValues>>['opts']>;

/** The request fields the override and metadata flags set (absent flags are left out). */
export function overrideFields(options: OverrideOptions): Record<string, unknown> {
  return definedFields({
    max_attempts: noneAsNull(options.maxAttempts),
    backoff_seconds: noneAsNull(options.backoffSeconds),
    timeout_seconds: noneAsNull(options.timeoutSeconds),
    result_ttl_seconds: noneAsNull(options.resultTtlSeconds),
    metadata: noneAsNull(options.metadata),
  });
}

/** The admin API's field for each of these flags, so `invalid_input` paths point back at what was typed. */
export const OVERRIDE_FIELD_FLAGS: Record<string, string> = {
  max_attempts: '--max-attempts',
  backoff_seconds: '--backoff-seconds',
  timeout_seconds: '--timeout-seconds',
  result_ttl_seconds: '--result-ttl-seconds',
  metadata: '--metadata',
  description: '--description',
};
