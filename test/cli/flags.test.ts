import { describe, expect, it } from 'vitest';
import { sundial } from './run-cli';

/** Flag problems are found before any request: these run with no admin API anywhere. */
describe('sundial rejects bad flags with exit code 2, naming the flag', () => {
  it.each([
    [
      ['schedules', 'add', '--task', 'echo', '--cron', '* * * * *', '--colour', 'blue'],
      "error: Unknown option '--colour'",
    ],
    [['schedules', 'add', '--task', 'echo', '--cron'], "error: Option '--cron <value>' argument missing"],
    [
      ['schedules', 'add', '--task', 'echo', '--every', '1s', '--payload', '{team:'],
      'error: --payload: not valid JSON',
    ],
    [['schedules', 'add', '--task', 'echo', '--every', 'often'], "error: --every: 'often' is not a duration"],
    [
      ['schedules', 'add', '--task', 'echo', '--every', '1s', '--cron', '* * * * *'],
      'error: give one trigger, not --cron and --every',
    ],
    [['schedules', 'get'], 'error: give the schedule id: sundial schedules get <id>'],
    [['schedules', 'frobnicate'], "error: unknown subcommand 'frobnicate'"],
    [['jobs', 'list', '--timezone', 'Mars/Olympus'], "error: --timezone: unknown time zone 'Mars/Olympus'"],
    [['jobs', 'add', '--task', 'echo', '--in', 'soon'], "error: --in: 'soon' is not a duration"],
    [
      ['schedules', 'add', '--task', 'echo', '--every', '1m', '--timezone', 'UTC'],
      'error: --timezone: only applies to --cron',
    ],
    [['schedules', 'list', '--paused', '--active'], 'error: give --paused or --active, not both'],
    [['schedules', 'update', 'nightly'], 'error: nothing to change'],
    [
      ['import', 'x.yaml', '--concurrency', '0'],
      "error: --concurrency: must be a whole number from 1 to 64 (got '0')",
    ],
    [['import', 'x.txt'], 'error: x.txt: give a .json, .yaml or .yml file'],
  ])('exits 2 on bad flags without calling the admin API: %j', async (args, message) => {
    const result = await sundial(args, { env: { SUNDIAL_PORT: '1' } });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.startsWith(message), result.stderr).toBe(true);
    expect(result.stderr).toMatch(
      /Run 'sundial (schedules|jobs) \w+ --help' for usage\.\n$|Run 'sundial (schedules|import) --help' for usage\.\n$/,
    );
  });
});

describe('sundial --help', () => {
  const commands = {
    schedules: ['add', 'list', 'get', 'update', 'pause', 'resume', 'remove', 'preview', 'run'],
    jobs: ['add', 'get', 'list', 'result', 'cancel'],
    tasks: ['list'],
  };

  it.each(
    Object.entries(commands).flatMap(([group, subcommands]) => subcommands.map((name) => [group, name])),
  )('sundial %s %s --help shows the usage and examples', async (group, name) => {
    const result = await sundial([group, name, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: sundial ${group} ${name}`));
    expect(result.stdout).toMatch(new RegExp(`\nExamples:\n  sundial ${group} ${name}`));
    expect(result.stdout).toContain('--local');
  });

  it.each(['import', 'dashboard'])('sundial %s --help shows the usage and examples', async (name) => {
    const result = await sundial([name, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`\nExamples:\n  sundial ${name}`));
  });

  it.each(Object.keys(commands))('sundial %s --help lists its subcommands', async (group) => {
    const result = await sundial([group, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Run 'sundial ${group} <subcommand> --help'`);
  });
});
