import {
  type Command,
  CommanderError,
  InvalidArgumentError,
  type OptionValues,
} from '@commander-js/extra-typings';

/** The exit code of a script (`npm start`, `npm run bench`, `npm run soak`) given a flag it does not take. */
export const EXIT_USAGE = 2;

/**
 * Parses a script's flags with commander and returns their typed values. `--help` prints the help
 * commander generates from the declared options and exits 0; a wrong flag prints commander's message
 * (`error: option '--workers <n>' argument '0' is invalid. …`) and exits 2.
 *
 * @example
 * const flags = parseScriptFlags(new Command('npm start --').option('--data-dir <dir>', 'keep data here'));
 */
export function parseScriptFlags<Opts extends OptionValues>(
  command: Command<[], Opts>,
  argv: readonly string[] = process.argv.slice(2),
): Opts {
  try {
    return command
      .exitOverride()
      .showHelpAfterError(`Run '${command.name()} --help' for its options.`)
      .parse([...argv], { from: 'user' })
      .opts();
  } catch (error) {
    if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : EXIT_USAGE);
    throw error;
  }
}

/** An option parser for a whole number from `min` (to `max`): `--workers 4`. */
export function wholeNumberFrom(min: number, max?: number): (text: string) => number {
  return (text) => {
    const value = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!(value >= min && value <= (max ?? Number.MAX_SAFE_INTEGER))) {
      const range = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
      throw new InvalidArgumentError(`Expected a whole number ${range}.`);
    }
    return value;
  };
}

/** An option parser for a number above 0 (`--tick-seconds 0.5`). */
export function positiveNumber(text: string): number {
  const value = text.trim() === '' ? Number.NaN : Number(text);
  if (!(Number.isFinite(value) && value > 0)) throw new InvalidArgumentError('Expected a number above 0.');
  return value;
}
