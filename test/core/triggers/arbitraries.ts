import fc from 'fast-check';

/** Zones with a 1-hour DST shift (both hemispheres), a 30-minute shift, midnight shifts, and none. */
export const ZONES = [
  'America/New_York',
  'Europe/Berlin',
  'Australia/Lord_Howe',
  'America/Santiago',
  'Asia/Tokyo',
  'UTC',
];

const MIN_INSTANT = Date.parse('2020-01-01T00:00:00Z');
const MAX_INSTANT = Date.parse('2031-01-01T00:00:00Z');

export const instantArb = fc.integer({ min: MIN_INSTANT, max: MAX_INSTANT });
export const isoInstantArb = instantArb.map((instant) => new Date(instant).toISOString());
export const zoneArb = fc.constantFrom(...ZONES);

const stepArb = (steps: number[]) => fc.constantFrom(...steps).map((step) => `*/${step}`);
const rangeArb = (min: number, max: number) =>
  fc
    .tuple(fc.integer({ min, max }), fc.integer({ min, max }))
    .map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`);
const listArb = (min: number, max: number) =>
  fc.uniqueArray(fc.integer({ min, max }), { minLength: 2, maxLength: 3 }).map((values) => values.join(','));
const valueArb = (min: number, max: number) => fc.integer({ min, max }).map(String);

/** Minutes and hours lean towards the small hours, where DST changes happen. */
const minuteArb = fc.oneof(
  fc.constant('*'),
  stepArb([5, 7, 15, 20, 30]),
  valueArb(0, 59),
  rangeArb(0, 59),
  listArb(0, 59),
);
const hourArb = fc.oneof(
  fc.constant('*'),
  stepArb([2, 3, 5]),
  valueArb(0, 3),
  valueArb(0, 23),
  rangeArb(0, 4),
  listArb(0, 3),
);
const dayOfMonthArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant('*') },
  { weight: 1, arbitrary: fc.constantFrom('L', '1', '15', '29', '31', '1-10', '*/2', '28,L') },
);
const monthArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant('*') },
  { weight: 1, arbitrary: fc.constantFrom('3', 'MAR-NOV', '*/3') },
);
const dayOfWeekArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant('*') },
  { weight: 1, arbitrary: fc.constantFrom('0', 'MON-FRI', '5L', '0#1', '6#5', 'SUN,SAT') },
);

/**
 * Valid items of one cron field: `*`, values (names and leading zeros too), ranges and steps,
 * with the field's own specials (`L`, `5L`, `5#3`) given as `specials`.
 */
export function cronItemArb(
  min: number,
  max: number,
  names: readonly string[] = [],
  specials: readonly string[] = [],
) {
  const valueArb = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min, max }).map(String) },
    { weight: 1, arbitrary: fc.integer({ min, max }).map((value) => `0${value}`) },
    { weight: names.length > 0 ? 2 : 0, arbitrary: fc.constantFrom('', ...names) },
  );
  const rangeArb = fc
    .tuple(fc.integer({ min, max }), fc.integer({ min, max }))
    .map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`);
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant('*') },
    { weight: 4, arbitrary: valueArb.filter((value) => value !== '') },
    { weight: 3, arbitrary: rangeArb },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          fc.oneof(fc.constant('*'), rangeArb, fc.integer({ min, max }).map(String)),
          fc.integer({ min: 1, max: max + 3 }),
        )
        .map(([base, step]) => `${base}/${step}`),
    },
    { weight: specials.length > 0 ? 1 : 0, arbitrary: fc.constantFrom('*', ...specials) },
  );
}

/** A field: mostly one item, sometimes a list of two to four (which may overlap). */
export const cronFieldArb = (itemArb: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 4, arbitrary: itemArb },
    {
      weight: 1,
      arbitrary: fc.array(itemArb, { minLength: 2, maxLength: 4 }).map((items) => items.join(',')),
    },
  );

/** All six fields, seconds first, over the syntax Sundial supports (lists may overlap). */
export const cronFieldsArb = fc.tuple(
  cronFieldArb(cronItemArb(0, 59)),
  cronFieldArb(cronItemArb(0, 59)),
  cronFieldArb(cronItemArb(0, 23)),
  cronFieldArb(cronItemArb(1, 31, [], ['L'])),
  cronFieldArb(cronItemArb(1, 12, ['JAN', 'jun', 'DEC'])),
  fc.oneof(
    {
      weight: 6,
      arbitrary: cronFieldArb(cronItemArb(0, 7, ['MON', 'fri', 'SUN'], ['5L', 'FRIL', '0L', '7L'])),
    },
    { weight: 1, arbitrary: fc.constantFrom('1#1', '5#3', 'FRI#5', '7#2', '0#4') },
  ),
);

/** 5-field cron expressions over the syntax Sundial supports. */
export const cronExpressionArb = fc
  .tuple(minuteArb, hourArb, dayOfMonthArb, monthArb, dayOfWeekArb)
  .map((fields) => fields.join(' '));

/** Some with a seconds field. */
const anyCronExpressionArb = fc.oneof(
  { weight: 3, arbitrary: cronExpressionArb },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('0', '*/10', '30', '15,45'), cronExpressionArb)
      .map((parts) => parts.join(' ')),
  },
);

/** start_at and end_at, each optional, start <= end. */
const windowArb = fc
  .tuple(
    fc.option(instantArb, { nil: undefined }),
    fc.option(fc.integer({ min: 0, max: 400 * 86_400_000 }), { nil: undefined }),
  )
  .map(([start, length]) => ({
    ...(start === undefined ? {} : { start_at: new Date(start).toISOString() }),
    ...(start === undefined || length === undefined
      ? {}
      : { end_at: new Date(start + length).toISOString() }),
  }));

export const cronTriggerArb = fc
  .tuple(anyCronExpressionArb, zoneArb, windowArb)
  .map(([expression, timezone, window]) => ({ type: 'cron', expression, timezone, ...window }));

export const intervalTriggerArb = fc
  .tuple(
    fc.record(
      { weeks: fc.nat(2), days: fc.nat(3), hours: fc.nat(30), minutes: fc.nat(90), seconds: fc.nat(90) },
      { requiredKeys: [] },
    ),
    fc.integer({ min: 1, max: 100_000 }),
    windowArb,
  )
  .map(([units, fallbackSeconds, window]) => {
    const total = Object.values(units).reduce((sum, value) => sum + (value ?? 0), 0);
    return { type: 'interval', ...(total > 0 ? units : { seconds: fallbackSeconds }), ...window };
  });

const dateArb = fc
  .integer({ min: 18_262, max: 22_280 })
  .map((days) => new Date(days * 86_400_000).toISOString().slice(0, 10));

export const calendarIntervalTriggerArb = fc
  .record({
    years: fc.nat(2),
    months: fc.nat(14),
    weeks: fc.nat(3),
    days: fc.nat(10),
    hour: fc.nat(23),
    minute: fc.nat(59),
    second: fc.nat(59),
    start_date: dateArb,
    timezone: zoneArb,
    end_days: fc.option(fc.nat(3_000), { nil: undefined }),
  })
  .map(({ end_days, ...spec }) => {
    const stepped = spec.years + spec.months + spec.weeks + spec.days > 0 ? spec : { ...spec, days: 1 };
    if (end_days === undefined) return { type: 'calendar_interval', ...stepped };
    const end = new Date(Date.parse(spec.start_date) + end_days * 86_400_000).toISOString().slice(0, 10);
    return { type: 'calendar_interval', ...stepped, end_date: end };
  });

export const dateTriggerArb = isoInstantArb.map((run_at) => ({ type: 'date', run_at }));

/** EventBridge Scheduler expressions, several of them in the small hours where offsets change. */
const EVENTBRIDGE_EXPRESSIONS = [
  'cron(0 10 ? * MON-FRI *)',
  'cron(*/15 0-3 * * ? *)',
  'cron(30 2 L * ? *)',
  'cron(0 1 LW * ? *)',
  'cron(0 0 15W * ? 2020-2031)',
  'cron(0 * ? * 1#2 *)',
  'cron(45 23 ? * 6L *)',
  'rate(7 minutes)',
  'rate(1 day)',
];

export const eventbridgeTriggerArb = fc.oneof(
  fc
    .tuple(fc.constantFrom(...EVENTBRIDGE_EXPRESSIONS), zoneArb, windowArb)
    .map(([expression, timezone, window]) => ({ type: 'eventbridge', expression, timezone, ...window })),
  fc
    .tuple(fc.integer({ min: 2020, max: 2030 }), fc.integer({ min: 0, max: 364 }), zoneArb)
    .map(([year, day, timezone]) => {
      const local = new Date(Date.UTC(year, 0, 1 + day, 2, 30)).toISOString().slice(0, 19);
      return { type: 'eventbridge', expression: `at(${local})`, timezone };
    }),
);

const leafTriggerArb = fc.oneof(
  cronTriggerArb,
  intervalTriggerArb,
  calendarIntervalTriggerArb,
  dateTriggerArb,
  eventbridgeTriggerArb,
);

/** `and` of a whole-minute cron and an interval dividing a minute: they always coincide. */
const coincidingAndArb = fc
  .tuple(cronExpressionArb, zoneArb, fc.constantFrom(1, 5, 10, 30, 60), fc.constantFrom(0, 1, 2.5))
  .map(([expression, timezone, seconds, threshold_seconds]) => ({
    type: 'and',
    triggers: [
      { type: 'cron', expression, timezone },
      { type: 'interval', seconds },
    ],
    threshold_seconds,
  }));

/** Children firing every 1 to 3 s, with how often. */
const denseChildArb = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 3 }), instantArb).map(([seconds, start]) => ({
    trigger: { type: 'interval', seconds, start_at: new Date(start).toISOString() },
    periodSeconds: seconds,
  })),
  fc.constantFrom(
    { trigger: { type: 'cron', expression: '* * * * * *' }, periodSeconds: 1 },
    { trigger: { type: 'cron', expression: '*/2 * * * * *' }, periodSeconds: 2 },
    { trigger: { type: 'cron', expression: '1/3 * * * * *' }, periodSeconds: 3 },
  ),
);

/**
 * `and` of children firing about as often as its threshold, which is at least the longest period
 * (so coincidences always exist): they overlap, and each fire must consume the ones it pairs.
 */
export const denseAndArb = fc
  .tuple(fc.array(denseChildArb, { minLength: 2, maxLength: 3 }), fc.constantFrom(0, 0.5, 1))
  .map(([children, extra]) => ({
    type: 'and',
    triggers: children.map(({ trigger }) => trigger),
    threshold_seconds: Math.max(...children.map(({ periodSeconds }) => periodSeconds)) + extra,
  }));

export const triggerArb = fc.oneof(
  { weight: 4, arbitrary: leafTriggerArb },
  {
    weight: 1,
    arbitrary: fc
      .array(leafTriggerArb, { minLength: 1, maxLength: 3 })
      .map((triggers) => ({ type: 'or', triggers })),
  },
  { weight: 1, arbitrary: coincidingAndArb },
  { weight: 1, arbitrary: denseAndArb },
);
