import { systemClock } from '../core/clock';
import { type Command, EXIT_INVALID_INPUT, EXIT_OK } from './command';
import { dashboardCommand } from './commands/dashboard';
import { importCommand } from './commands/import';
import { jobsCommand } from './commands/jobs';
import { previewCommand } from './commands/preview';
import { schedulesCommand } from './commands/schedules';
import { tasksCommand } from './commands/tasks';
import type { CliIo } from './io';
import { reportError } from './report-error';

/** Every command, in the order `sundial --help` lists them. New commands get a file in `commands/` and a line here. */
const COMMANDS: readonly Command[] = [
  schedulesCommand,
  jobsCommand,
  tasksCommand,
  importCommand,
  dashboardCommand,
  previewCommand,
];

function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  const lines = COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return `Usage: sundial <command> [options]

Commands:
${lines.join('\n')}

Commands that manage schedules and jobs talk to the admin API: the local platform (npm start) when
it answers on 127.0.0.1:$SUNDIAL_PORT (default 4750), else the deployed stack's admin Lambda.
Exit codes: 0 done, 1 the operation failed, 2 the input was wrong.

Run 'sundial <command> --help' for a command's options and examples.
`;
}

/**
 * Runs one `sundial` invocation in-process and resolves to its exit code: 0 done, 1 the operation
 * failed, 2 invalid input (the message on stderr names the flag or field; no stack trace).
 *
 * @example
 * const code = await run(['schedules', 'list', '--json'], { stdout: process.stdout, stderr: process.stderr, clock: systemClock });
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
    return reportError(error, io.stderr, command.name);
  }
}

/** The process entry point (see `bin/sundial.mjs`): real streams and clock, exit code on `process`. */
export async function main(): Promise<void> {
  // The SDK warns on every run under Node 20 (which Sundial supports) that future versions need 22:
  // noise on every command's stderr, not something the user of this CLI can act on.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  process.exitCode = await run(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    clock: systemClock,
  });
}
