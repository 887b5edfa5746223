import { parseArgs } from 'node:util';

/** Parses `--name value` flags into numbers/strings/booleans, with defaults; exits 2 on a bad flag. */
export function readFlags<T extends Record<string, number | string | boolean>>(
  usage: string,
  defaults: T,
): T {
  const options = Object.fromEntries(
    Object.entries(defaults).map(([name, value]) => [
      name,
      { type: typeof value === 'boolean' ? ('boolean' as const) : ('string' as const) },
    ]),
  );
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ options: { ...options, help: { type: 'boolean' } }, allowPositionals: false }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${usage}\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  const result: Record<string, number | string | boolean> = { ...defaults };
  for (const [name, fallback] of Object.entries(defaults)) {
    const value = values[name];
    if (value === undefined) continue;
    if (typeof fallback === 'number') {
      const number = Number(value);
      if (!Number.isFinite(number) || number < 0) {
        process.stderr.write(`--${name}: expected a number, got '${String(value)}'\n\n${usage}\n`);
        process.exit(2);
      }
      result[name] = number;
    } else {
      result[name] = value;
    }
  }
  return result as T;
}
