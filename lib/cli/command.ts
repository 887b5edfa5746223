import type { Command } from '@commander-js/extra-typings';
import type { CliIo } from './io';

/** Exit codes of `sundial` (docs/cli.md, "Output and exit codes"). */
export const EXIT_OK = 0;
/** The admin API answered with an error (`schedule_not_found`, `invalid_input`, …) or could not be reached, or import items failed. */
export const EXIT_OPERATION_FAILED = 1;
/** The command line was wrong (unknown flag, missing value, bad JSON in a flag): nothing was sent. */
export const EXIT_USAGE = 2;
/** An unexpected exception inside the CLI: a bug to report. */
export const EXIT_INTERNAL_ERROR = 3;

/**
 * The user asked for something the command cannot do as asked, found after commander parsed the
 * flags (`--timezone` without `--cron`, an import file of the wrong shape): exit code 2, the message
 * and a pointer to the command's `--help` on stderr, no stack trace. `message` names the argument.
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** One `sundial` run, as the commands see it. */
export interface Invocation {
  readonly io: CliIo;
  /** A command that ends without an error but not fully done sets this (import with failed items). */
  exitCode: number;
}

/**
 * Declares a command (or a group of them) under `parent` and what it does. Each lives in its own file
 * under `commands/` and is listed in `program.ts`.
 */
export type CommandBuilder = (parent: Command, invocation: Invocation) => void;
