import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/core/clock';
import { sundial } from './run-cli';

const clock = new ManualClock(Date.parse('2026-03-02T09:00:07Z'));
const preview = (args: readonly string[]) => sundial(['preview', ...args], { clock });

describe('sundial preview with an EventBridge Scheduler expression', () => {
  it('reads cron(…) in EventBridge’s dialect, in --timezone', async () => {
    const result = await preview([
      'cron(0 10 ? * MON-FRI *)',
      '--timezone',
      'Europe/Berlin',
      '--from',
      '2026-03-27T00:00:00Z',
      '--count',
      '2',
    ]);
    expect(result).toEqual({
      code: 0,
      stdout: [
        "Fire times of 'cron(0 10 ? * MON-FRI *)' in Europe/Berlin, at or after 2026-03-27T00:00:00Z:",
        '',
        '#  Europe/Berlin                        UTC',
        '1  Fri 2026-03-27 10:00:00 +01:00 CET   2026-03-27 09:00:00Z',
        '2  Mon 2026-03-30 10:00:00 +02:00 CEST  2026-03-30 08:00:00Z',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('starts rate(…) now, as a schedule without StartDate does', async () => {
    const result = await preview(['rate(5 minutes)', '--count', '2', '--json']);
    expect(result.stdout).toBe('[\n  "2026-03-02T09:00:07Z",\n  "2026-03-02T09:05:07Z"\n]\n');
  });

  it('names the problem in EventBridge’s terms, exit 2', async () => {
    const result = await preview(['rate(1 minutes)']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "error: expression: 'rate(1 minutes)' is not a valid EventBridge rate() expression: write rate(1 minute): the unit is singular when the value is 1 and plural otherwise\nRun 'sundial preview --help' for usage.\n",
    );
  });

  it('suggests cron(…) for an EventBridge expression given as a plain cron expression', async () => {
    const result = await preview(['0 10 ? * MON *']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("write it as 'cron(0 10 ? * MON *)'");
  });
});
