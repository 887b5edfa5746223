// Text for people: times in a given time zone, relative times, durations and trigger summaries.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** `in 42 s`, `3 min ago`, `in 5 h`, `2 d ago`, `now`: the same words as the CLI. */
export function relativeTime(instant, now) {
  const delta = instant - now;
  const distance = Math.abs(delta);
  if (distance < SECOND / 2) return 'now';
  let amount;
  if (distance < MINUTE - SECOND / 2) amount = `${Math.round(distance / SECOND)} s`;
  else if (distance < HOUR - MINUTE / 2) amount = `${Math.round(distance / MINUTE)} min`;
  else if (distance < 48 * HOUR) amount = `${Math.round(distance / HOUR)} h`;
  else amount = `${Math.round(distance / DAY)} d`;
  return delta > 0 ? `in ${amount}` : `${amount} ago`;
}

const formatters = new Map();

function formatter(locale, options) {
  const key = `${locale} ${JSON.stringify(options)}`;
  let cached = formatters.get(key);
  if (!cached) {
    cached = new Intl.DateTimeFormat(locale, options);
    formatters.set(key, cached);
  }
  return cached;
}

function partsOf(instant, locale, options) {
  return Object.fromEntries(
    formatter(locale, options)
      .formatToParts(new Date(instant))
      .map((part) => [part.type, part.value]),
  );
}

/** English locales whose short zone names differ: en-US knows EST, en-GB knows CET and BST, en-AU AEST, en-IN IST. */
const NAME_LOCALES = ['en-US', 'en-GB', 'en-AU', 'en-IN'];

/** `CET`, `EDT`, …; the numeric offset (`GMT+9`) where no locale has a name. */
function zoneName(instant, zone) {
  let fallback = '';
  for (const locale of NAME_LOCALES) {
    const name = partsOf(instant, locale, { timeZone: zone, timeZoneName: 'short' }).timeZoneName ?? '';
    if (!/^(GMT|UTC)[+-]/.test(name)) return name;
    fallback ||= name;
  }
  return fallback;
}

/** `Mon 2026-03-02 10:00:00 CET`: wall-clock time in `zone` with the zone's short name. */
export function timeInZone(instant, zone) {
  const parts = partsOf(instant, 'en-GB', {
    timeZone: zone,
    weekday: 'short',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
  return `${parts.weekday} ${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} ${zoneName(instant, zone)}`;
}

/** `HH:MM:SS` in `zone`, for compact lists. */
export function clockTime(instant, zone) {
  return timeInZone(instant, zone).split(' ')[2];
}

/** `850 ms`, `2.5 s`, `3 min 20 s`, `2 h 5 min`. */
export function duration(seconds) {
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${Number(seconds.toFixed(seconds < 10 ? 2 : 1))} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

const INTERVAL_UNITS = [
  ['weeks', 'w'],
  ['days', 'd'],
  ['hours', 'h'],
  ['minutes', 'm'],
  ['seconds', 's'],
];

/** `cron 0 9 * * MON-FRI`, `every 1h30m`, `every 1 month at 09:00`, `once at …`, `or(2 triggers)`. */
export function describeTrigger(trigger) {
  switch (trigger.type) {
    case 'cron':
      return `cron ${trigger.expression}`;
    case 'interval':
      return `every ${INTERVAL_UNITS.filter(([unit]) => trigger[unit])
        .map(([unit, short]) => `${trigger[unit]}${short}`)
        .join('')}`;
    case 'calendar_interval': {
      const steps = ['years', 'months', 'weeks', 'days']
        .filter((unit) => trigger[unit])
        .map((unit) => `${trigger[unit]} ${trigger[unit] === 1 ? unit.slice(0, -1) : unit}`);
      const time = [trigger.hour ?? 0, trigger.minute ?? 0].map((part) => String(part).padStart(2, '0'));
      return `every ${steps.join(' ')} at ${time.join(':')}`;
    }
    case 'date':
      return `once at ${trigger.run_at}`;
    default:
      return `${trigger.type}(${trigger.triggers?.length ?? 0} triggers)`;
  }
}

/** Sets an element's text only when it changed, so screen readers and selections are not disturbed. */
export function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

/** `document.createElement` with a class and text. */
export function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}
