import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { run } from '../../lib/cli/main';
import { type Clock, ManualClock } from '../../lib/core/clock';

const NOW = Date.parse('2026-03-07T00:00:00Z');

async function sundial(args: string[], clock: Clock = new ManualClock(NOW)) {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    clock,
  });
  return { code, stdout, stderr };
}

describe('sundial preview', () => {
  it('prints a JSON array of ISO times in the trigger’s zone with --json', async () => {
    const result = await sundial([
      'preview',
      '30 2 * * *',
      '--timezone',
      'America/New_York',
      '--count',
      '3',
      '--json',
    ]);
    expect(result).toEqual({
      code: 0,
      stdout:
        '[\n  "2026-03-07T02:30:00-05:00",\n  "2026-03-08T03:00:00-04:00",\n  "2026-03-09T02:30:00-04:00"\n]\n',
      stderr: '',
    });
  });

  it('previews a trigger given as JSON from --from', async () => {
    const trigger = JSON.stringify({
      type: 'calendar_interval',
      months: 1,
      start_date: '2026-01-31',
      hour: 9,
      timezone: 'Europe/Berlin',
    });
    const result = await sundial([
      'preview',
      '--trigger',
      trigger,
      '--from',
      '2026-02-01T00:00:00+01:00',
      '--count',
      '2',
      '--json',
    ]);
    expect(JSON.parse(result.stdout)).toEqual(['2026-03-31T09:00:00+02:00', '2026-05-31T09:00:00+02:00']);
  });

  it('prints a table with local time, offset, abbreviation and UTC', async () => {
    const result = await sundial(['preview', '30 2 * * *', '--timezone', 'America/New_York', '--count', '3']);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')).toEqual([
      "Fire times of cron '30 2 * * *' in America/New_York, at or after 2026-03-07T00:00:00Z:",
      '',
      '#  America/New_York                    UTC',
      '1  Sat 2026-03-07 02:30:00 -05:00 EST  2026-03-07 07:30:00Z',
      '2  Sun 2026-03-08 03:00:00 -04:00 EDT  2026-03-08 07:00:00Z',
      '3  Mon 2026-03-09 02:30:00 -04:00 EDT  2026-03-09 06:30:00Z',
      '',
    ]);
  });

  it('says so when the trigger ends before --count fire times', async () => {
    const trigger = JSON.stringify({
      type: 'interval',
      hours: 1,
      start_at: '2026-03-07T00:00:00Z',
      end_at: '2026-03-07T01:00:00Z',
    });
    const result = await sundial(['preview', '--trigger', trigger]);
    expect(result.stdout).toContain('2  Sat 2026-03-07 01:00:00 +00:00 UTC\n');
    expect(result.stdout).toContain('The trigger has no more fire times: 2 of the 10 asked for.');
  });

  it('reads a list with overlapping members as their union, and says how it read it', async () => {
    const result = await sundial(['preview', '0 9 * * 0,7', '--count', '2']);
    expect(result).toEqual({
      code: 0,
      stdout: [
        "Fire times of cron '0 9 * * 0,7' (read as '0 9 * * 0') in UTC, at or after 2026-03-07T00:00:00Z:",
        '',
        '#  UTC',
        '1  Sun 2026-03-08 09:00:00 +00:00 UTC',
        '2  Sun 2026-03-15 09:00:00 +00:00 UTC',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('anchors an interval without start_at at now, as add_schedule stores it', async () => {
    const now = NOW + 13_000;
    const trigger = JSON.stringify({ type: 'interval', minutes: 7 });
    const result = await sundial(
      ['preview', '--trigger', trigger, '--count', '3', '--json'],
      new ManualClock(now),
    );
    expect(JSON.parse(result.stdout)).toEqual(
      [0, 7, 14].map((minutes) => new Date(now + minutes * 60_000).toISOString().replace('.000Z', 'Z')),
    );
  });

  it('shows 10 fire times from the clock’s now by default', async () => {
    const result = await sundial(
      ['preview', '*/5 * * * *', '--json'],
      new ManualClock(Date.parse('2026-03-07T00:01:00Z')),
    );
    const fires: string[] = JSON.parse(result.stdout);
    expect(fires).toHaveLength(10);
    expect(fires[0]).toBe('2026-03-07T00:05:00Z');
  });

  it('prints help with examples and exits 0', async () => {
    const result = await sundial(['preview', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'sundial preview --trigger \'{"type": "interval", "minutes": 90}\' --json',
    );
  });
});

describe('sundial preview rejects invalid input with exit code 2 and one message naming the field', () => {
  it.each([
    [
      ['preview', '--trigger', '{"type": "cron", "expression": "*/0 * * * *"}'],
      "error: --trigger: trigger.expression: invalid cron expression '*/0 * * * *': step must be at least 1",
    ],
    [
      ['preview', '0 9 * * *', '--from', '2026-03-08T02:30:00'],
      "error: option '--from <ISO>' argument '2026-03-08T02:30:00' is invalid. '2026-03-08T02:30:00' has no UTC offset, so it is ambiguous: add 'Z' for UTC or an offset such as '+01:00'",
    ],
    [
      ['preview', '0 9 * * *', '--count', '1001'],
      "error: option '--count <n>' argument '1001' is invalid. Expected a whole number from 1 to 1000.",
    ],
    [
      ['preview', '0 9 * * *', '--timezone', 'Europe/Berlim'],
      "error: --timezone: unknown time zone 'Europe/Berlim'; use an IANA name such as 'Europe/Berlin', 'America/New_York' or 'UTC'",
    ],
    [
      ['preview', '0', '9', '*', '*', '*'],
      "error: quote the cron expression as one argument: sundial preview '0 9 * * *'",
    ],
    [
      ['preview', '--trigger', '{"type":'],
      `error: option '--trigger <json>' argument '{"type":' is invalid. Not valid JSON (`,
    ],
    [['preview', '0 9 * * *', '--every', '5'], "error: unknown option '--every'"],
    [['preview'], "error: give a cron expression ('*/5 * * * *') or --trigger '<JSON>'"],
    [['schedule'], "error: unknown command 'schedule'\n(Did you mean schedules?)"],
  ])('%j', async (args, message) => {
    const result = await sundial(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.startsWith(message), result.stderr).toBe(true);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 3 on an internal error, without a stack trace', async () => {
    const brokenClock = {
      now(): number {
        throw new Error('clock unavailable');
      },
    };
    const result = await sundial(['preview', '0 9 * * *'], brokenClock);
    expect(result).toEqual({ code: 3, stdout: '', stderr: 'internal error: clock unavailable\n' });
  });
});

describe('bin/sundial.mjs', () => {
  it('runs the CLI through tsx from any directory', async () => {
    const bin = resolve(import.meta.dirname, '../../bin/sundial.mjs');
    const args = [
      bin,
      'preview',
      '0 12 * * *',
      '--timezone',
      'Asia/Tokyo',
      '--from',
      '2026-03-07T00:00:00Z',
      '--count',
      '2',
      '--json',
    ];
    const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: tmpdir(), timeout: 30_000 });
    expect(JSON.parse(stdout)).toEqual(['2026-03-07T12:00:00+09:00', '2026-03-08T12:00:00+09:00']);
  }, 40_000);
});
