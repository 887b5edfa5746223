import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import type { CommandBuilder, Invocation } from './command';
import { dashboardCommand } from './commands/dashboard';
import { importCommand } from './commands/import';
import { jobsCommand } from './commands/jobs';
import { previewCommand } from './commands/preview';
import { schedulesCommand } from './commands/schedules';
import { tasksCommand } from './commands/tasks';
import { usageHint } from './help-text';

/** Every command, in the order `sundial --help` lists them. New commands get a file in `commands/` and a line here. */
const COMMANDS: readonly CommandBuilder[] = [
  schedulesCommand,
  jobsCommand,
  tasksCommand,
  importCommand,
  dashboardCommand,
  previewCommand,
];

const MAIN_HELP_AFTER = `
Commands that manage schedules and jobs talk to the admin API: the local
platform (npm start) when it answers on 127.0.0.1:$SUNDIAL_PORT (default: 4750),
else the deployed stack's admin Lambda.

Exit codes: 0 done, 1 the operation failed, 2 the command line was wrong, 3 internal error.

Run 'sundial <command> --help' for a command's options and examples.`;

/**
 * The `sundial` command tree for one run, declared with commander: it parses and checks the flags,
 * generates every `--help`, and writes to `invocation.io`. Commander's own errors (unknown flag,
 * missing value, …) and `--help` throw `CommanderError` instead of exiting the process.
 */
export function buildProgram(invocation: Invocation): Command {
  const { io } = invocation;
  const program = new Command('sundial')
    .usage('<command> [options]')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    // Each command's arguments and options are in its own help; the lists show names only.
    .configureHelp({ subcommandTerm: (command) => command.name() })
    .addHelpText('after', MAIN_HELP_AFTER);
  for (const add of COMMANDS) add(program, invocation);
  for (const command of withSubcommands(program)) command.showHelpAfterError(usageHint(command));
  return program;
}

function withSubcommands(command: CommandUnknownOpts): CommandUnknownOpts[] {
  return [command, ...command.commands.flatMap(withSubcommands)];
}
