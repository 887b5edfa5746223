import { describe, expect, it } from 'vitest';
import { sundial } from './run-cli';

/** Flag problems are found before any request: these run with no admin API anywhere. */
describe('sundial rejects a wrong command line with exit code 2, naming the flag', () => {
  it.each([
    [
      ['schedules', 'add', '--task', 'echo', '--cron', '* * * * *', '--colour', 'blue'],
      "error: unknown option '--colour'",
    ],
    [
      ['schedules', 'add', '--task', 'echo', '--cron'],
      "error: option '--cron <expression>' argument missing",
    ],
    [
      ['schedules', 'add', '--task', 'echo', '--every', '1s', '--payload', '{team:'],
      "error: option '--payload <json>' argument '{team:' is invalid. Not valid JSON (",
    ],
    [
      ['schedules', 'add', '--task', 'echo', '--every', 'often'],
      "error: option '--every <duration>' argument 'often' is invalid. Not a duration; use e.g. 30s, 5m, 1h30m, 2d or 1w.",
    ],
    [
      ['schedules', 'add', '--task', 'echo', '--every', '1s', '--cron', '* * * * *'],
      "error: option '--cron <expression>' cannot be used with option '--every <duration>'",
    ],
    [['schedules', 'get'], "error: missing required argument 'id'"],
    [['schedules', 'get', 'a', 'b'], "error: too many arguments for 'get'"],
    [['schedules', 'frobnicate'], "error: unknown command 'frobnicate'"],
    [
      ['jobs', 'list', '--timezone', 'Mars/Olympus'],
      "error: option '--timezone <zone>' argument 'Mars/Olympus' is invalid. Unknown time zone; use an IANA name such as 'Europe/Berlin'.",
    ],
    [
      ['jobs', 'add', '--task', 'echo', '--in', 'soon'],
      "error: option '--in <duration>' argument 'soon' is invalid. Not a duration; use e.g. 30s, 10m or 2h.",
    ],
    [
      ['jobs', 'add', '--task', 'echo', '--in', '100000000d'],
      "error: option '--in <duration>' argument '100000000d' is invalid. Too long; at most 100 years (5200w).",
    ],
    [
      ['jobs', 'list', '--status', 'error', '--since', '1000000000d'],
      "error: option '--since <when>' argument '1000000000d' is invalid. Too long; at most 100 years (5200w).",
    ],
    [
      ['jobs', 'count', '--since', '1000000000d'],
      "error: option '--since <when>' argument '1000000000d' is invalid. Too long; at most 100 years (5200w).",
    ],
    [
      ['schedules', 'add', '--task', 'echo', '--every', '1m', '--timezone', 'UTC'],
      'error: --timezone: only applies to --cron',
    ],
    [
      ['schedules', 'list', '--paused', '--active'],
      "error: option '--paused' cannot be used with option '--active'",
    ],
    [['schedules', 'update', 'nightly'], 'error: nothing to change'],
    [
      ['import', 'x.yaml', '--concurrency', '0'],
      "error: option '--concurrency <n>' argument '0' is invalid. Expected a whole number from 1 to 64.",
    ],
    [['import', 'x.txt'], 'error: x.txt: give a .json, .yaml or .yml file'],
  ])('exits 2 on a wrong command line without calling the admin API: %j', async (args, message) => {
    const result = await sundial(args, { env: { SUNDIAL_PORT: '1' } });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.startsWith(message), result.stderr).toBe(true);
    const command = args.slice(0, args[0] === 'import' ? 1 : 2).join(' ');
    const helpOf = args[1] === 'frobnicate' ? 'schedules' : command;
    expect(result.stderr.endsWith(`Run 'sundial ${helpOf} --help' for usage.\n`), result.stderr).toBe(true);
  });

  it('suggests the flag the user probably meant', async () => {
    const result = await sundial(['schedules', 'list', '--pasued']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("error: unknown option '--pasued'\n(Did you mean --paused?)\n");
  });

  it('shows the help on stderr and exits 2 when the command or subcommand is missing', async () => {
    const bare = await sundial([]);
    expect(bare).toMatchObject({ code: 2, stdout: '' });
    expect(bare.stderr).toMatch(/^Usage: sundial <command> \[options\]/);
    const group = await sundial(['jobs']);
    expect(group).toMatchObject({ code: 2, stdout: '' });
    expect(group.stderr).toMatch(/^Usage: sundial jobs <subcommand> \[options\]/);
  });
});

describe('sundial parses flags the usual ways', () => {
  it('takes --flag=value as --flag value', async () => {
    const spaced = await sundial([
      'preview',
      '0 12 * * *',
      '--timezone',
      'Asia/Tokyo',
      '--count',
      '2',
      '--json',
    ]);
    const joined = await sundial(['preview', '0 12 * * *', '--timezone=Asia/Tokyo', '--count=2', '--json']);
    expect(joined).toEqual(spaced);
    expect(JSON.parse(joined.stdout)).toHaveLength(2);
  });

  it('reads a negative number as the flag’s value, not as a flag', async () => {
    const result = await sundial(['preview', '0 9 * * *', '--count', '-5']);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      "error: option '--count <n>' argument '-5' is invalid. Expected a whole number from 1 to 1000.",
    );
  });

  it('reads a negative number given with = the same way', async () => {
    const result = await sundial(['preview', '0 9 * * *', '--count=-5']);
    expect(result.stderr.split('\n')[0]).toBe(
      "error: option '--count <n>' argument '-5' is invalid. Expected a whole number from 1 to 1000.",
    );
  });
});

describe('sundial --help is generated from the declared commands and options', () => {
  const commands = {
    schedules: ['add', 'list', 'get', 'update', 'pause', 'resume', 'remove', 'preview', 'run'],
    jobs: ['add', 'get', 'list', 'result', 'cancel'],
    tasks: ['list'],
  };

  it.each(
    Object.entries(commands).flatMap(([group, subcommands]) => subcommands.map((name) => [group, name])),
  )('sundial %s %s --help shows the usage, options, target flags and examples', async (group, name) => {
    const result = await sundial([group, name, '--help']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(new RegExp(`^Usage: sundial ${group} ${name}`));
    expect(result.stdout).toMatch(/\nOptions:\n {2}--json +print the admin API's result as JSON/);
    expect(result.stdout).toMatch(/\n {2}-h, --help +display help for command\n/);
    expect(result.stdout).toMatch(
      /\nWhere the admin API is \(default: [^\n]+\):\n {2}--local +the local platform/,
    );
    expect(result.stdout).toMatch(new RegExp(`\nExamples:\n  sundial ${group} ${name}`));
  });

  it.each(['import', 'dashboard', 'preview'])(
    'sundial %s --help shows the usage and examples',
    async (name) => {
      const result = await sundial([name, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^Usage: sundial ${name} `));
      expect(result.stdout).toMatch(new RegExp(`\nExamples:\n  sundial ${name}`));
    },
  );

  it('lists each option with its value and description', async () => {
    const result = await sundial(['schedules', 'list', '--help']);
    expect(result.stdout).toMatch(/\n {2}--limit <n> +page size, 1-500 \(default: 50\)\n/);
    expect(result.stdout).toMatch(/\n {2}--paused +only paused schedules\n/);
    expect(result.stdout).toMatch(/\n {2}--profile <name> +AWS profile/);
  });

  it.each(Object.entries(commands))('sundial %s --help lists its subcommands', async (group, subcommands) => {
    const result = await sundial([group, '--help']);
    expect(result.code).toBe(0);
    for (const name of subcommands) expect(result.stdout).toMatch(new RegExp(`\n {2}${name}\\b.* {2}\\w`));
    expect(result.stdout).toContain(`Run 'sundial ${group} <subcommand> --help'`);
  });

  it('sundial --help lists every command and the exit codes', async () => {
    const result = await sundial(['--help']);
    expect(result.code).toBe(0);
    for (const name of ['schedules', 'jobs', 'tasks', 'import', 'dashboard', 'preview']) {
      expect(result.stdout).toMatch(new RegExp(`\n {2}${name}\\b`));
    }
    expect(result.stdout).toContain(
      'Exit codes: 0 done, 1 the operation failed, 2 the command line was wrong, 3 internal error.',
    );
  });

  it('answers `sundial help <command>` and `sundial <group> help <subcommand>`', async () => {
    const command = await sundial(['help', 'preview']);
    expect(command.code).toBe(0);
    expect(command.stdout).toMatch(/^Usage: sundial preview /);
    const subcommand = await sundial(['schedules', 'help', 'pause']);
    expect(subcommand.code).toBe(0);
    expect(subcommand.stdout).toMatch(/^Usage: sundial schedules pause /);
  });
});
