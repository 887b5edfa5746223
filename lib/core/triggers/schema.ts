import * as z from 'zod';
import { quote } from '../quote';
import { MS_PER_DAY, MS_PER_HOUR, MS_PER_MINUTE, MS_PER_SECOND } from './calendar';
import { parseCronExpression } from './cron/cron-expression';
import { parseEventBridgeExpression } from './eventbridge/expression';
import { type Parsed, parseIsoDate, parseIsoInstant } from './timestamps';
import { isKnownTimeZone } from './zones';

/**
 * The JSON shapes of triggers. Field names are snake_case because the JSON is what users write
 * and what is stored; the TypeScript types are inferred from these schemas. Optional fields keep
 * their defaults implicit (documented on each field) so a stored trigger is exactly what its
 * owner wrote.
 */

export const TRIGGER_TYPES = [
  'cron',
  'interval',
  'calendar_interval',
  'date',
  'and',
  'or',
  'eventbridge',
] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

/** The longest interval accepted: 100 years of seconds keeps every sum far inside exact integers. */
const MAX_INTERVAL_MS = 100 * 366 * MS_PER_DAY;
export const MAX_CHILD_TRIGGERS = 100;
export const MAX_THRESHOLD_SECONDS = 86_400;

function checked<T>(parse: (text: string) => Parsed<T>) {
  return z.string().superRefine((text, context) => {
    const parsed = parse(text);
    if (!parsed.ok) context.addIssue({ code: 'custom', message: parsed.problem });
  });
}

const instantSchema = checked(parseIsoInstant);
const dateSchema = checked(parseIsoDate);
const cronExpressionSchema = checked(parseCronExpression);
const timezoneSchema = z.string().superRefine((name, context) => {
  if (!isKnownTimeZone(name)) {
    context.addIssue({
      code: 'custom',
      message: `unknown time zone ${quote(name)}; use an IANA name such as 'Europe/Berlin', 'America/New_York' or 'UTC'`,
    });
  }
});
const countSchema = z.number().int().min(0);

/** Runs a cross-field check only when the fields it reads were valid, so every other problem is still reported. */
function whenValid(...fields: string[]) {
  return (payload: { value: unknown; issues: readonly { path?: readonly PropertyKey[] | undefined }[] }) =>
    typeof payload.value === 'object' &&
    payload.value !== null &&
    !payload.issues.some((issue) => fields.includes(String(issue.path?.[0])));
}

interface TimeWindow {
  start_at?: string | undefined;
  end_at?: string | undefined;
}

function startNotAfterEnd(window: TimeWindow): boolean {
  if (window.start_at === undefined || window.end_at === undefined) return true;
  const start = parseIsoInstant(window.start_at);
  const end = parseIsoInstant(window.end_at);
  return !start.ok || !end.ok || start.value <= end.value;
}

const NEVER_FIRES = 'the trigger could never fire';
const ONE_TIME_WINDOW =
  'does not apply to at(…), which fires once (EventBridge Scheduler ignores StartDate and EndDate for one-time schedules)';

/** An instant as UTC ISO-8601, milliseconds only when there are some. */
function utcText(text: string | undefined): string {
  const parsed = parseIsoInstant(text ?? '');
  return parsed.ok ? new Date(parsed.value).toISOString().replace('.000Z', 'Z') : String(text);
}

/** `end_at` before `start_at` leaves no instant to fire at: refused rather than stored to sit idle. */
const windowCheck = {
  error: (issue: { input?: unknown }) => {
    const window = issue.input as TimeWindow;
    return `must not be before start_at (${utcText(window.end_at)} is before ${utcText(window.start_at)}): ${NEVER_FIRES}`;
  },
  path: ['end_at'],
  when: whenValid('start_at', 'end_at'),
};

export const cronTriggerSchema = z
  .strictObject({
    type: z.literal('cron'),
    /** 5 fields, or 6 with seconds first. */
    expression: cronExpressionSchema,
    /** IANA zone the expression is read in. @default 'UTC' */
    timezone: timezoneSchema.optional(),
    /** No fire before this instant (inclusive). */
    start_at: instantSchema.optional(),
    /** No fire after this instant (inclusive). */
    end_at: instantSchema.optional(),
  })
  .refine(startNotAfterEnd, windowCheck);

const INTERVAL_UNITS = {
  weeks: 7 * MS_PER_DAY,
  days: MS_PER_DAY,
  hours: MS_PER_HOUR,
  minutes: MS_PER_MINUTE,
  seconds: MS_PER_SECOND,
};

/** The interval's length in ms. */
export function intervalMs(spec: Partial<Record<keyof typeof INTERVAL_UNITS, number>>): number {
  return Object.entries(INTERVAL_UNITS).reduce(
    (total, [unit, ms]) => total + (spec[unit as keyof typeof INTERVAL_UNITS] ?? 0) * ms,
    0,
  );
}

export const intervalTriggerSchema = z
  .strictObject({
    type: z.literal('interval'),
    weeks: countSchema.optional(),
    days: countSchema.optional(),
    hours: countSchema.optional(),
    minutes: countSchema.optional(),
    seconds: countSchema.optional(),
    /** The first fire time; later ones follow every interval. @default the Unix epoch (fires on whole multiples) */
    start_at: instantSchema.optional(),
    end_at: instantSchema.optional(),
  })
  .refine((spec) => intervalMs(spec) > 0, {
    message: 'at least one of weeks, days, hours, minutes, seconds must be greater than 0',
    when: whenValid(...Object.keys(INTERVAL_UNITS)),
  })
  .refine((spec) => intervalMs(spec) <= MAX_INTERVAL_MS, {
    message: 'the interval must be at most 100 years',
    when: whenValid(...Object.keys(INTERVAL_UNITS)),
  })
  .refine(startNotAfterEnd, windowCheck);

const CALENDAR_UNITS = ['years', 'months', 'weeks', 'days'] as const;

export const calendarIntervalTriggerSchema = z
  .strictObject({
    type: z.literal('calendar_interval'),
    years: countSchema.optional(),
    months: countSchema.optional(),
    weeks: countSchema.optional(),
    days: countSchema.optional(),
    /** Wall-clock time of day of every fire. @default 0 */
    hour: z.number().int().min(0).max(23).optional(),
    /** @default 0 */
    minute: z.number().int().min(0).max(59).optional(),
    /** @default 0 */
    second: z.number().int().min(0).max(59).optional(),
    /** `YYYY-MM-DD`: the first date; later dates are counted from it. */
    start_date: dateSchema,
    /** `YYYY-MM-DD`: the last date that may fire (inclusive). */
    end_date: dateSchema.optional(),
    /** @default 'UTC' */
    timezone: timezoneSchema.optional(),
  })
  .refine((spec) => CALENDAR_UNITS.some((unit) => (spec[unit] ?? 0) > 0), {
    message: 'at least one of years, months, weeks, days must be greater than 0',
    when: whenValid(...CALENDAR_UNITS),
  })
  .refine((spec) => spec.end_date === undefined || spec.start_date <= spec.end_date, {
    error: (issue: { input?: unknown }) => {
      const { start_date, end_date } = issue.input as { start_date: string; end_date: string };
      return `must not be before start_date (${end_date} is before ${start_date}): ${NEVER_FIRES}`;
    },
    path: ['end_date'],
    when: whenValid('start_date', 'end_date'),
  });

export const dateTriggerSchema = z.strictObject({
  type: z.literal('date'),
  /** The one fire time. */
  run_at: instantSchema,
});

/** EventBridge Scheduler's `ScheduleExpression`, `ScheduleExpressionTimezone`, `StartDate`, `EndDate`. */
export const eventbridgeTriggerSchema = z
  .strictObject({
    type: z.literal('eventbridge'),
    /** `cron(…)` (six fields, EventBridge's dialect), `rate(…)` or `at(…)`. */
    expression: checked(parseEventBridgeExpression),
    /** IANA zone the expression is read in. @default 'UTC' */
    timezone: timezoneSchema.optional(),
    /** No fire before this instant (inclusive); the first fire of a `rate(…)`. @default now, for a rate */
    start_at: instantSchema.optional(),
    /** No fire after this instant (inclusive). */
    end_at: instantSchema.optional(),
  })
  .refine(startNotAfterEnd, windowCheck)
  .refine((spec) => !spec.expression.startsWith('at(') || spec.start_at === undefined, {
    message: ONE_TIME_WINDOW,
    path: ['start_at'],
  })
  .refine((spec) => !spec.expression.startsWith('at(') || spec.end_at === undefined, {
    message: ONE_TIME_WINDOW,
    path: ['end_at'],
  });

const childTriggersSchema = () =>
  z
    .array(triggerSchema)
    .min(1, { error: 'must list at least 1 trigger' })
    .max(MAX_CHILD_TRIGGERS, { error: `must list at most ${MAX_CHILD_TRIGGERS} triggers` });

export const andTriggerSchema = z.strictObject({
  type: z.literal('and'),
  get triggers(): z.ZodArray<typeof triggerSchema> {
    return childTriggersSchema();
  },
  /** Children firing at most this far apart count as firing together (at most a day). @default 1 */
  threshold_seconds: z.number().min(0).max(MAX_THRESHOLD_SECONDS).optional(),
  /** How many rounds of advancing children `next()` may take before giving up. @default 10000 */
  max_iterations: z.number().int().min(1).max(1_000_000).optional(),
});

export const orTriggerSchema = z.strictObject({
  type: z.literal('or'),
  get triggers(): z.ZodArray<typeof triggerSchema> {
    return childTriggersSchema();
  },
});

export const triggerSchema = z.discriminatedUnion('type', [
  cronTriggerSchema,
  intervalTriggerSchema,
  calendarIntervalTriggerSchema,
  dateTriggerSchema,
  andTriggerSchema,
  orTriggerSchema,
  eventbridgeTriggerSchema,
]);

export type TriggerSpec = z.infer<typeof triggerSchema>;
export type CronTriggerSpec = z.infer<typeof cronTriggerSchema>;
export type IntervalTriggerSpec = z.infer<typeof intervalTriggerSchema>;
export type CalendarIntervalTriggerSpec = z.infer<typeof calendarIntervalTriggerSchema>;
export type DateTriggerSpec = z.infer<typeof dateTriggerSchema>;
export type AndTriggerSpec = z.infer<typeof andTriggerSchema>;
export type OrTriggerSpec = z.infer<typeof orTriggerSchema>;
export type EventBridgeTriggerSpec = z.infer<typeof eventbridgeTriggerSchema>;
