import { DAY_OF_WEEK_FIELD, expandListMember } from './cron-library';
import type { CronFieldTexts } from './cron-syntax';

/**
 * The six fields with each list whose members overlap written as their union, which is how Sundial
 * reads a list: `*\/15,30` → `0,15,30,45`, `0,7` in day-of-week → `0`. cron-parser reads each
 * member; given the list as written it would refuse it for holding a value twice. Fields without
 * such a list stay as written.
 *
 * @example
 * canonicalFields(['0', '0', '9', '*', '*', 'MON-FRI,1']); // ['0', '0', '9', '*', '*', '1-5']
 */
export function canonicalFields(fields: CronFieldTexts): CronFieldTexts {
  return fields.map((text, field) => canonicalField(text, field)) as unknown as CronFieldTexts;
}

function canonicalField(text: string, field: number): string {
  const members = text.split(',');
  if (members.length < 2) return text;
  const readings = members.map((member) => expandListMember(field, member));
  if (readings.some((values) => values === undefined)) return text;
  const tokens = readings.flatMap((values) => [...new Set(values?.map((value) => token(value, field)))]);
  const union = new Set(tokens);
  if (union.size === tokens.length) return text;
  const isNumber = (token: string) => /^\d+$/.test(token);
  const numbers = [...union].filter(isNumber).map(Number);
  const specials = [...union].filter((token) => !isNumber(token)).sort();
  return [...runs(numbers.sort((a, b) => a - b)), ...specials].join(',');
}

/** A value as comparable text; in day-of-week 7 is Sunday, like 0 (`7` → `0`, `7L` → `0L`). */
function token(value: number | string, field: number): string {
  if (field !== DAY_OF_WEEK_FIELD) return String(value);
  return typeof value === 'number' ? String(value % 7) : `${Number.parseInt(value, 10) % 7}L`;
}

/** Sorted values with runs of three or more written as ranges: [1, 2, 3, 5] → ['1-3', '5']. */
function runs(sorted: readonly number[]): string[] {
  const parts: string[] = [];
  for (let start = 0; start < sorted.length; ) {
    let end = start;
    while (end + 1 < sorted.length && (sorted[end + 1] ?? 0) === (sorted[end] ?? 0) + 1) end++;
    const [low, high] = [sorted[start] ?? 0, sorted[end] ?? 0];
    if (end - start >= 2) parts.push(`${low}-${high}`);
    else for (let index = start; index <= end; index++) parts.push(String(sorted[index]));
    start = end + 1;
  }
  return parts;
}
