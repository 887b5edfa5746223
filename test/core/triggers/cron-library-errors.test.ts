import { CronExpressionParser } from 'cron-parser';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseCronExpression } from '../../../lib/core/triggers/cron/cron-expression';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('cron-parser errors, in Sundial’s words', () => {
  it.each([
    [
      'Constraint error, got value 7 expected range 0-6',
      '0 9 * * 1',
      'Sundial cannot read it as a schedule; write each field as docs/triggers.md describes',
    ],
    [
      'Invalid explicit day of month definition',
      '0 0 31 4 *',
      'it never fires: none of its months has that day of the month (February has at most 29 days; April, June, September and November have 30)',
    ],
  ])('turns cron-parser’s %j into Sundial’s words', (libraryMessage, expression, problem) => {
    // cron-parser fails with the message under test
    vi.spyOn(CronExpressionParser, 'parse').mockImplementation(() => {
      throw new Error(libraryMessage);
    });

    expect(parseCronExpression(expression)).toEqual({
      ok: false,
      problem: `invalid cron expression '${expression}': ${problem}`,
    });
  });
});
