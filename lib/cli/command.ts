import type { CliIo } from './io';

/** Exit codes: 0 done, 1 something broke inside Sundial, 2 the input was wrong (fix it and run again). */
export const EXIT_OK = 0;
export const EXIT_INTERNAL_ERROR = 1;
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
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
