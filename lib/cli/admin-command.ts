import type { ParseArgsConfig } from 'node:util';
import type { AdminClient } from './admin/client';
import { connectAdmin, TARGET_HELP, TARGET_OPTIONS, type TargetFlags } from './admin/target';
import { COMMON_OPTIONS, type FlagValues, parseFlags } from './args';
import { type Command, EXIT_OK } from './command';
import type { CliIo } from './io';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface AdminCommandInput {
  values: FlagValues;
  positionals: string[];
  io: CliIo;
  /** Connects on first use, so flag problems are reported before any network call. */
  admin(): Promise<AdminClient>;
  /** `--json`: the admin API's result as JSON on stdout; otherwise `human()` as text. */
  print(result: unknown, human: () => string): void;
}

export interface AdminCommandSpec<T extends Options> {
  name: string;
  summary: string;
  /** The usage lines, description and own options; the target flags and examples are appended. */
  usage: string;
  examples: readonly string[];
  options: T;
  execute(input: AdminCommandInput): Promise<number | undefined>;
}

/**
 * A (sub)command that talks to the admin API: parses its flags plus the target flags (`--local`,
 * `--function`, …), `--json` and `--help`, connects lazily, and closes the client afterwards.
 */
export function adminCommand<T extends Options>(spec: AdminCommandSpec<T>): Command {
  const help = `${spec.usage.trimEnd()}
  --json              print the admin API's result as JSON (nothing else on stdout)
  -h, --help          show this help

${TARGET_HELP}

Examples:
${spec.examples.map((example) => `  ${example}`).join('\n')}
`;
  return {
    name: spec.name,
    summary: spec.summary,
    help,
    async run(args, io) {
      const parsed = parseFlags(args, { ...spec.options, ...TARGET_OPTIONS, ...COMMON_OPTIONS });
      const values = parsed.values as FlagValues;
      const positionals = parsed.positionals;
      if (values.help) {
        io.stdout.write(help);
        return EXIT_OK;
      }
      let client: AdminClient | undefined;
      try {
        return (
          (await spec.execute({
            values,
            positionals,
            io,
            admin: async () => {
              client ??= await connectAdmin(values as TargetFlags, io);
              return client;
            },
            print: (result, human) => {
              io.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${human()}\n`);
            },
          })) ?? EXIT_OK
        );
      } finally {
        client?.close();
      }
    },
  };
}
