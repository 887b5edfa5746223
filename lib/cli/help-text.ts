import type { CommandUnknownOpts } from '@commander-js/extra-typings';

/**
 * Joins the lines of each paragraph, so that commander wraps a description to the terminal's width
 * instead of breaking the source's line breaks a second time on a narrow one.
 */
export function reflow(text: string): string {
  return text
    .trim()
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s*\n\s*/g, ' '))
    .join('\n\n');
}

/** The `Examples:` section at the end of a command's help. */
export function examplesHelp(examples: readonly string[]): string {
  return `\nExamples:\n${examples.map((example) => `  ${example}`).join('\n')}`;
}

/** `sundial schedules add`: the words that run a command. */
export function commandPath(command: CommandUnknownOpts): string {
  return command.parent ? `${commandPath(command.parent)} ${command.name()}` : command.name();
}

/** The line after a usage error: which help to read. */
export function usageHint(command: CommandUnknownOpts): string {
  return `Run '${commandPath(command)} --help' for usage.`;
}
