import { type Command, Option } from '@commander-js/extra-typings';
import { LOCAL_ADMIN_PORT } from '../core/admin-contract/endpoint';
import type { AdminClient } from './admin/client';
import { connectAdmin, DEFAULT_STACK } from './admin/target';
import { type CommandBuilder, EXIT_OK } from './command';
import { examplesHelp, reflow } from './help-text';
import type { CliIo } from './io';

const TARGET_GROUP = `Where the admin API is (default: the local platform if it answers, else the stack '${DEFAULT_STACK}'):`;

/** A new subcommand with `--json` and the flags that say where the admin API is (`--local`, `--function`, …). */
function adminSubcommand(parent: Command, name: string) {
  const target = <Flags extends string>(flags: Flags, description: string) =>
    new Option(flags, description).helpGroup(TARGET_GROUP);
  return parent
    .command(name)
    .option('--json', "print the admin API's result as JSON (nothing else on stdout)")
    .addOption(
      target(
        '--local',
        `the local platform (npm start) at http://127.0.0.1:$SUNDIAL_PORT (default: ${LOCAL_ADMIN_PORT})`,
      ),
    )
    .addOption(
      target('--function <name>', "the admin Lambda's name or ARN (default: env SUNDIAL_ADMIN_FUNCTION)"),
    )
    .addOption(
      target(
        '--stack <name>',
        `read the admin function from this stack's outputs (default: ${DEFAULT_STACK})`,
      ),
    )
    .addOption(
      target(
        '--profile <name>',
        "AWS profile (default: the SDK's usual chain: AWS_PROFILE, env credentials, …)",
      ),
    )
    .addOption(target('--region <region>', "AWS region (default: AWS_REGION or the profile's region)"));
}

/** The subcommand an admin command's `declare` adds its own arguments and options to. */
export type AdminSubcommand = ReturnType<typeof adminSubcommand>;
/** The values of the flags every admin command takes. */
export type AdminOptions = ReturnType<AdminSubcommand['opts']>;

export interface AdminCommandInput<Args extends unknown[], Opts extends AdminOptions> {
  /** The command's arguments, as declared (`<id>` → `[id]`). */
  args: Args;
  /** Its flags, typed and parsed by their declared parsers. */
  options: Opts;
  io: CliIo;
  /** Connects on first use, so flag problems are reported before any network call. */
  admin(): Promise<AdminClient>;
  /** `--json`: the admin API's result as JSON on stdout; otherwise `human()` as text. */
  print(result: unknown, human: () => string): void;
}

export interface AdminCommandSpec<Args extends unknown[], Opts extends AdminOptions> {
  name: string;
  /** One line for the parent's command list. */
  summary: string;
  /** The paragraphs under the usage line of its `--help`. */
  description: string;
  /** The usage after the command's name, when commander's `[options] <args>` says too little. */
  usage?: string;
  examples: readonly string[];
  /** Declares the command's own arguments and options (with their parsers and help). */
  declare(command: AdminSubcommand): Command<Args, Opts>;
  /** Runs it; resolves to an exit code other than 0, or to nothing when done. */
  execute(input: AdminCommandInput<Args, Opts>): Promise<number | undefined>;
}

/**
 * A (sub)command that talks to the admin API: its own flags plus the target flags (`--local`,
 * `--function`, …), `--json` and `--help`; connects lazily and closes the client afterwards.
 */
export function adminCommand<Args extends unknown[], Opts extends AdminOptions>(
  spec: AdminCommandSpec<Args, Opts>,
): CommandBuilder {
  return (parent, invocation) => {
    const subcommand = adminSubcommand(parent, spec.name)
      .summary(spec.summary)
      .description(reflow(spec.description))
      .addHelpText('after', examplesHelp(spec.examples));
    if (spec.usage !== undefined) subcommand.usage(spec.usage);
    const command = spec.declare(subcommand);
    command.action(async () => {
      const options = command.opts();
      const { io } = invocation;
      let client: AdminClient | undefined;
      try {
        const code = await spec.execute({
          args: command.processedArgs,
          options,
          io,
          admin: async () => {
            client ??= await connectAdmin(options, io);
            return client;
          },
          print: (result, human) => {
            io.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : `${human()}\n`);
          },
        });
        invocation.exitCode = code ?? EXIT_OK;
      } finally {
        client?.close();
      }
    });
  };
}
