import { DAY_OF_MONTH, DAY_OF_WEEK, type FieldRule, fieldValue } from './cron-syntax';

/** What one field of a valid cron expression accepts. */
export interface FieldValues {
  /** The values it matches; day-of-week ones are 0-6, 0 = Sunday (7 is read as 0). */
  values: ReadonlySet<number>;
  /** `L` in day-of-month: the last day of the month. */
  lastDay: boolean;
  /** `5L` in day-of-week: the weekdays (0-6) whose last occurrence in the month matches. */
  lastWeekdays: ReadonlySet<number>;
  /** `5#3` in day-of-week: 3 (only the third Friday); 0 without `#`. */
  nth: number;
}

/**
 * Expands one field of an expression that passed `findCronFieldProblem`. A list is the union of
 * its items, whether they overlap or not. Steps count from the start of their range up to its
 * end, or up to the field's maximum for `a/k` and `*\/k`: in day-of-week that maximum is 7
 * (Sunday again), so `1/3` is Monday, Thursday and Sunday.
 *
 * @example
 * expandField('*\/15,30', MINUTE).values; // Set { 0, 15, 30, 45 }
 * expandField('0,7', DAY_OF_WEEK).values; // Set { 0 }
 */
export function expandField(text: string, rule: FieldRule): FieldValues {
  return mergeItems(text.split(',').map((item) => expandItem(item, rule)));
}

/**
 * The field with its list written as the union of its items, when two items overlap
 * (`*\/15,30` → `0,15,30,45`, `0,7` in day-of-week → `0`); the text as it is otherwise.
 *
 * @example
 * canonicalFieldText('MON-FRI,1', DAY_OF_WEEK); // '1-5'
 */
export function canonicalFieldText(text: string, rule: FieldRule): string {
  const items = text.split(',').map((item) => expandItem(item, rule));
  const tokens = items.flatMap(itemTokens);
  if (new Set(tokens).size === tokens.length) return text;
  const field = mergeItems(items);
  return [
    ...runs([...field.values].sort((a, b) => a - b)),
    ...(field.lastDay ? ['L'] : []),
    ...[...field.lastWeekdays].sort((a, b) => a - b).map((weekday) => `${weekday}L`),
  ].join(',');
}

function expandItem(item: string, rule: FieldRule): FieldValues {
  const values = new Set<number>();
  const lastWeekdays = new Set<number>();
  const field = { values, lastDay: false, lastWeekdays, nth: 0 };
  if (rule === DAY_OF_MONTH && item.toUpperCase() === 'L') return { ...field, lastDay: true };
  if (rule === DAY_OF_WEEK && /L$/i.test(item)) {
    lastWeekdays.add(numberOf(item.slice(0, -1), rule) % 7);
    return field;
  }
  if (item.includes('#')) {
    const [weekday = '', nth = ''] = item.split('#');
    values.add(numberOf(weekday, rule) % 7);
    return { ...field, nth: Number(nth) };
  }
  const [base = '', stepText] = item.split('/');
  const step = stepText === undefined ? 1 : Number(stepText);
  const [lowText = '', highText] = base.split('-');
  const low = base === '*' ? rule.min : numberOf(lowText, rule);
  const high =
    base === '*' || (highText === undefined && stepText !== undefined)
      ? rule.max
      : numberOf(highText ?? lowText, rule);
  for (let value = low; value <= high; value += step) values.add(rule === DAY_OF_WEEK ? value % 7 : value);
  return field;
}

function mergeItems(items: readonly FieldValues[]): FieldValues {
  return {
    values: new Set(items.flatMap((item) => [...item.values])),
    lastDay: items.some((item) => item.lastDay),
    lastWeekdays: new Set(items.flatMap((item) => [...item.lastWeekdays])),
    nth: items.find((item) => item.nth > 0)?.nth ?? 0,
  };
}

/** What an item accepts, as comparable tokens: two items overlap when they share one. */
function itemTokens(item: FieldValues): string[] {
  return [
    ...[...item.values].map(String),
    ...(item.lastDay ? ['L'] : []),
    ...[...item.lastWeekdays].map((weekday) => `${weekday}L`),
  ];
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

function numberOf(text: string, rule: FieldRule): number {
  const value = fieldValue(text, rule);
  if (typeof value === 'string') throw new Error(`unchecked cron field value: ${value}`);
  return value;
}
