import { AdminAnswerError, AdminUnavailableError } from './admin/answer';
import { EXIT_INTERNAL_ERROR, EXIT_OPERATION_FAILED, EXIT_USAGE, UsageError } from './command';
import type { TextOutput } from './io';

/**
 * Writes what went wrong to stderr, without a stack trace, and returns the exit code: 2 for a
 * command line the user must fix, 1 for an admin API that answered with an error or could not be
 * reached, 3 for anything unexpected (a bug). `usageHint` points at the running command's help.
 */
export function reportError(error: unknown, stderr: TextOutput, usageHint: string): number {
  if (error instanceof UsageError) {
    stderr.write(`error: ${error.message}\n${usageHint}\n`);
    return EXIT_USAGE;
  }
  if (error instanceof AdminAnswerError) {
    stderr.write(describeAnswerError(error));
    return EXIT_OPERATION_FAILED;
  }
  if (error instanceof AdminUnavailableError) {
    stderr.write(`error: ${error.message}\n${error.hint ? `hint: ${error.hint}\n` : ''}`);
    return EXIT_OPERATION_FAILED;
  }
  stderr.write(`internal error: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT_INTERNAL_ERROR;
}

/**
 * `error: schedule_not_found: no schedule 'x'`, or for `invalid_input` every problem on its own line,
 * with the flag that set the field where there is one:
 *
 *   error: invalid_input: the admin API rejected 2 fields:
 *     max_jitter_seconds (--jitter): must be a whole number from 0 to 3600
 *     trigger.expression (--cron): invalid cron expression '*' …
 */
export function describeAnswerError(error: AdminAnswerError): string {
  if (error.details.length === 0) return `error: ${error.code}: ${error.message}\n`;
  const count = error.details.length;
  const lines = error.details.map(({ path, message }) => {
    const flag = flagOf(path, error.fieldFlags);
    return `  ${path || '(request)'}${flag ? ` (${flag})` : ''}: ${message}`;
  });
  return `error: ${error.code}: the admin API rejected ${count} field${count === 1 ? '' : 's'}:\n${lines.join('\n')}\n`;
}

/** The flag of a field path or of its closest parent (`trigger.expression` → `--cron`). */
function flagOf(path: string, fieldFlags: Readonly<Record<string, string>>): string | undefined {
  for (let prefix = path; prefix !== ''; prefix = prefix.replace(/(\.[^.]*|\[\d+\])$/, '')) {
    const flag = fieldFlags[prefix];
    if (flag) return flag;
    if (!/[.[]/.test(prefix)) break;
  }
  return undefined;
}
