import { systemClock } from '../core/clock';
import { type Command, EXIT_INTERNAL_ERROR, EXIT_INVALID_INPUT, EXIT_OK, UsageError } from './command';
import { previewCommand } from './commands/preview';
import type { CliIo } from './io';

/** Every command, in the order `sundial --help` lists them. New commands get a file in `commands/` and a line here. */
const COMMANDS: readonly Command[] = [previewCommand];

function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  const lines = COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return `Usage: sundial <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun 'sundial <command> --help' for a command's options and examples.\n`;
}

/**
 * Runs one `sundial` invocation in-process and resolves to its exit code: 0 done, 1 internal
 * error, 2 invalid input (the message on stderr names the argument or field; no stack trace).
 *
 * @example
 * const code = await run(['preview', '0 9 * * *', '--count', '3'], { stdout: process.stdout, stderr: process.stderr, clock: systemClock });
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout).write(mainHelp());
    return name === undefined ? EXIT_INVALID_INPUT : EXIT_OK;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    io.stderr.write(`error: unknown command '${name}'\n\n${mainHelp()}`);
    return EXIT_INVALID_INPUT;
  }
  try {
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      io.stderr.write(
        `error: ${(error as Error).message}\nRun 'sundial ${command.name} --help' for usage.\n`,
      );
      return EXIT_INVALID_INPUT;
    }
    io.stderr.write(`internal error: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_INTERNAL_ERROR;
  }
}

/** node:util parseArgs rejects unknown options and missing values with these codes. */
function isParseArgsError(error: unknown): boolean {
  return error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS_');
}

/** The process entry point (see `bin/sundial.mjs`): real streams and clock, exit code on `process`. */
export async function main(): Promise<void> {
  process.exitCode = await run(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    clock: systemClock,
  });
}
