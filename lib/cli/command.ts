import type { CliIo } from './io';

/** Exit codes: 0 done, 1 the operation failed (or Sundial could not be reached), 2 the input was wrong (fix it and run again). */
export const EXIT_OK = 0;
export const EXIT_INTERNAL_ERROR = 1;
export const EXIT_OPERATION_FAILED = 1;
export const EXIT_INVALID_INPUT = 2;

/** One `sundial <name>` command. Each lives in its own file under `commands/` and is listed in `main.ts`. */
export interface Command {
  name: string;
  /** One line for `sundial --help`. */
  summary: string;
  /** The full text for `sundial <name> --help`. */
  help: string;
  /** Runs with the arguments after the command name; resolves to the exit code. */
  run(args: readonly string[], io: CliIo): Promise<number>;
}

/**
 * The user asked for something the command cannot do as asked: exit code 2, the message and a
 * pointer to `--help` on stderr, no stack trace. `message` names the argument (`--from: …`).
 * `command` is the command whose help to point at (`schedules add`), when it is not the top-level one.
 */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** node:util parseArgs rejects unknown options and missing values with these codes. */
export function isParseArgsError(error: unknown): error is Error {
  return error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS_');
}
