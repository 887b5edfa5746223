import { CommanderError, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { quietSdkNodeVersionWarning } from '../adapters/sdk-node-version';
import { systemClock } from '../core/clock';
import { EXIT_OK, EXIT_USAGE, type Invocation } from './command';
import { usageHint } from './help-text';
import type { CliIo } from './io';
import { buildProgram } from './program';
import { reportError } from './report-error';

/**
 * Runs one `sundial` invocation in-process and resolves to its exit code: 0 done, 1 the operation
 * failed, 2 the command line was wrong, 3 internal error (the message on stderr names the flag or
 * field; no stack trace).
 *
 * @example
 * const code = await run(['schedules', 'list', '--json'], { stdout: process.stdout, stderr: process.stderr, clock: systemClock });
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const invocation: Invocation = { io, exitCode: EXIT_OK };
  const program = buildProgram(invocation);
  let running: CommandUnknownOpts = program;
  program.hook('preAction', (_program, actionCommand) => {
    running = actionCommand;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return invocation.exitCode;
  } catch (error) {
    // Commander has written its message (or the help) already; it exits 0 only for help.
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    return reportError(error, io.stderr, usageHint(running));
  }
}

/** The process entry point (see `bin/sundial.mjs`): real streams and clock, exit code on `process`. */
export async function main(): Promise<void> {
  quietSdkNodeVersionWarning();
  process.exitCode = await run(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    clock: systemClock,
  });
}
