import type { Command } from '@commander-js/extra-typings';
import type { CommandBuilder } from './command';
import { reflow } from './help-text';

export interface CommandGroup {
  name: string;
  summary: string;
  /** A paragraph under the usage line of `sundial <group> --help`. */
  description: string;
  subcommands: readonly CommandBuilder[];
}

/**
 * A command made of subcommands (`sundial schedules add|list|…`): commander dispatches on the first
 * argument, lists the subcommands with `--help`, and reports an unknown one.
 */
export function commandGroup(group: CommandGroup): CommandBuilder {
  return (parent: Command, invocation) => {
    const command = parent
      .command(group.name)
      .usage('<subcommand> [options]')
      .summary(group.summary)
      .description(reflow(group.description))
      .addHelpText(
        'after',
        `\nRun 'sundial ${group.name} <subcommand> --help' for its options and examples.`,
      );
    for (const subcommand of group.subcommands) subcommand(command, invocation);
  };
}
