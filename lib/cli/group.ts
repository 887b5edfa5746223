import { type Command, EXIT_INVALID_INPUT, EXIT_OK, isParseArgsError, UsageError } from './command';

export interface CommandGroup {
  name: string;
  summary: string;
  /** A paragraph under the usage line of `sundial <group> --help`. */
  description: string;
  subcommands: readonly Command[];
}

/**
 * A command made of subcommands (`sundial schedules add|list|…`): dispatches on the first argument,
 * lists the subcommands with `--help`, and points usage errors at the subcommand's own help.
 */
export function commandGroup(group: CommandGroup): Command {
  const help = groupHelp(group);
  return {
    name: group.name,
    summary: group.summary,
    help,
    async run(args, io) {
      const [name, ...rest] = args;
      if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
        (name === undefined ? io.stderr : io.stdout).write(help);
        return name === undefined ? EXIT_INVALID_INPUT : EXIT_OK;
      }
      const subcommand = group.subcommands.find((candidate) => candidate.name === name);
      if (!subcommand) {
        const names = group.subcommands.map((candidate) => candidate.name).join(', ');
        throw new UsageError(`unknown subcommand '${name}'; one of ${names}`, group.name);
      }
      try {
        return await subcommand.run(rest, io);
      } catch (error) {
        if (error instanceof UsageError && error.command === undefined) {
          throw new UsageError(error.message, `${group.name} ${subcommand.name}`);
        }
        if (isParseArgsError(error)) throw new UsageError(error.message, `${group.name} ${subcommand.name}`);
        throw error;
      }
    },
  };
}

function groupHelp(group: CommandGroup): string {
  const width = Math.max(...group.subcommands.map((subcommand) => subcommand.name.length));
  const lines = group.subcommands.map(
    (subcommand) => `  ${subcommand.name.padEnd(width)}  ${subcommand.summary}`,
  );
  return `Usage: sundial ${group.name} <subcommand> [options]

${group.description}

Subcommands:
${lines.join('\n')}

Run 'sundial ${group.name} <subcommand> --help' for its options and examples.
`;
}
