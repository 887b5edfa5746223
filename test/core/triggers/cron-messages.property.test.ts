import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCronExpression } from '../../../lib/core/triggers/cron/cron-expression';
import { cronFieldArb, cronItemArb } from './arbitraries';

/** How cron-parser words its errors: none of it may reach a user. */
const DEPENDENCY_WORDING =
  /Validation error|Constraint error|Invalid (cron expression|range|step|repeat|characters|wildcard|list value|explicit)|Unexpected range|cannot resolve alias|Cron(Second|Minute|Hour|DayOfMonth|Month|DayOfWeek)/;

const junkItemArb = fc.oneof(
  fc.integer({ min: 0, max: 99 }).map(String),
  fc.constantFrom(
    'FOO',
    'L',
    '5L',
    'FRIL',
    '1#6',
    'L-2',
    '15W',
    '?',
    'H',
    'H/5',
    '',
    '1/2/3',
    '*/',
    '*/0',
    '5-1',
  ),
);
/** Mostly valid items (overlapping lists included), sometimes out of range or not cron at all. */
const mixedFieldArb = (min: number, max: number, names?: readonly string[]) =>
  cronFieldArb(
    fc.oneof({ weight: 5, arbitrary: cronItemArb(min, max, names) }, { weight: 1, arbitrary: junkItemArb }),
  );

const FIELDS = [
  mixedFieldArb(0, 59),
  mixedFieldArb(0, 23),
  mixedFieldArb(1, 31),
  mixedFieldArb(1, 12, ['JAN', 'jun', 'DEC']),
  mixedFieldArb(0, 7, ['MON', 'fri', 'SUN']),
] as const;

const expressionArb = fc.oneof(
  fc.tuple(...FIELDS).map((fields) => fields.join(' ')),
  fc.tuple(mixedFieldArb(0, 59), ...FIELDS).map((fields) => fields.join(' ')),
  fc.array(mixedFieldArb(0, 59), { minLength: 1, maxLength: 8 }).map((fields) => fields.join(' ')),
);

describe('cron expression messages (property)', () => {
  it('accept an expression or say in Sundial’s words why not, never in its cron library’s', () => {
    const outcomes = { accepted: 0, refused: 0 };
    fc.assert(
      fc.property(expressionArb, (expression) => {
        const parsed = parseCronExpression(expression);
        outcomes[parsed.ok ? 'accepted' : 'refused'] += 1;
        if (!parsed.ok) {
          expect(parsed.problem).toMatch(/^invalid cron expression '/);
          expect(parsed.problem).not.toMatch(DEPENDENCY_WORDING);
        }
      }),
      { numRuns: 2_000 },
    );
    // both answers came up, so the words were checked on refusals
    expect(outcomes.accepted).toBeGreaterThan(100);
    expect(outcomes.refused).toBeGreaterThan(100);
  });

  it('read a value with leading zeros as its number, up to the 512-character bound', () => {
    const parsed = parseCronExpression(`${'0'.repeat(503)}5 * * * *`);
    expect(parsed.ok && parsed.value.minutes.flatMap((match, minute) => (match ? [minute] : []))).toEqual([
      5,
    ]);
  });

  it('refuse a longer expression in Sundial’s words before anything reads it', () => {
    const parsed = parseCronExpression(`${'0'.repeat(1_100)}5 * * * *`);
    expect(parsed).toEqual({
      ok: false,
      problem: 'must be at most 512 characters (it has 1109); a cron expression needs far fewer',
    });
  });
});
