import { CronExpressionParser, type CronFieldCollection } from 'cron-parser';
import type { Parsed } from '../timestamps';
import type { CronFieldTexts } from './cron-syntax';

/**
 * Sundial's only use of cron-parser: it expands the fields of an expression that passed Sundial's
 * own syntax check. Nothing it throws leaves this file in its words.
 */

const NEVER_FIRES =
  'it never fires: none of its months has that day of the month (February has at most 29 days; April, June, September and November have 30)';
/** An expression Sundial's syntax check let through but cron-parser refused: a gap in that check. */
const UNREADABLE = 'Sundial cannot read it as a schedule; write each field as docs/triggers.md describes';

/** The index of the day-of-week field in `CronFieldTexts`. */
export const DAY_OF_WEEK_FIELD = 5;

/**
 * The six fields expanded by cron-parser, or why not in Sundial's words.
 *
 * @example
 * expandCronFields(['0', '*\/15', '*', '*', '*', 'MON-FRI']); // ok; .value.minute.values is [0, 15, 30, 45]
 * expandCronFields(['0', '0', '0', '31', '4', '*']); // { ok: false, problem: 'it never fires: …' }
 */
export function expandCronFields(fields: CronFieldTexts): Parsed<CronFieldCollection> {
  try {
    const expression = CronExpressionParser.parse(fields.join(' ').toUpperCase(), {
      tz: 'UTC',
      currentDate: 0,
    });
    return { ok: true, value: expression.fields };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      problem: message.includes('Invalid explicit day of month') ? NEVER_FIRES : UNREADABLE,
    };
  }
}

/** cron-parser's names of the fields, in the order of `CronFieldTexts`. */
const FIELD_NAMES = ['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek'] as const;

/**
 * What cron-parser reads one list member as, in the field with index `field` (seconds first):
 * numbers, `'L'` (last day of the month) or `'5L'` (last Friday); undefined when it refuses it.
 *
 * @example
 * expandListMember(1, '*\/15'); // [0, 15, 30, 45]
 * expandListMember(DAY_OF_WEEK_FIELD, 'FRIL'); // ['5L']
 */
export function expandListMember(field: number, member: string): readonly (number | string)[] | undefined {
  const fields = ['*', '*', '*', '*', '*', '*'].map((text, index) => (index === field ? member : text));
  const expanded = expandCronFields(fields as unknown as CronFieldTexts);
  const name = FIELD_NAMES[field];
  return expanded.ok && name !== undefined ? expanded.value[name].values : undefined;
}
