import { Cron } from 'croner';
import { IANAZone } from 'luxon';
import type { EpochMs } from '../../../lib/core/clock';

/**
 * croner (an independent, well-kept cron library) as a reference for Sundial's cron triggers:
 * how to write a Sundial expression for it, where the two read an expression differently on
 * purpose, and Sundial's DST policy applied to croner's wall-clock matches.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;

/** How many values each field has, seconds first (day-of-week counts 0-6; 7 is Sunday again). */
const FIELD_SIZE = [60, 60, 24, 31, 12, 7] as const;
const DAY_OF_MONTH = 3;
const DAY_OF_WEEK = 5;

/**
 * A difference between Sundial and croner that docs/triggers.md documents. Where one applies,
 * the expression is rewritten for croner the way Sundial reads it, and the test counts it.
 */
export interface NamedException {
  name: string;
  /**
   * The item as croner must see it to read it as Sundial does, or undefined when this exception
   * does not apply. `field` is the field's index (seconds first), `fieldText` all of it.
   */
  rewrite(item: string, field: number, fieldText: string): string | undefined;
}

export const EXCEPTIONS: readonly NamedException[] = [
  {
    // croner counts a day-of-month list holding `*` and `L` (`*,L`) as `*`, and then requires
    // day-of-week too; Sundial counts every day field other than exactly `*` as restricted.
    name: 'a day field is restricted unless it is exactly *',
    rewrite: (item, field, fieldText) =>
      item === '*' && fieldText !== '*' && (field === DAY_OF_MONTH || field === DAY_OF_WEEK)
        ? field === DAY_OF_MONTH
          ? '1-31'
          : '0-6'
        : undefined,
  },
  {
    // croner refuses a step above the field's size; Sundial keeps the first value of the range.
    name: 'a step longer than its field gives the first value of its range',
    rewrite: (item, field) => {
      const [base = '', step] = item.split('/');
      if (step === undefined || Number(step) <= FIELD_SIZE[field as 0]) return undefined;
      return base === '*' ? String(field === 3 || field === 4 ? 1 : 0) : (base.split('-')[0] ?? base);
    },
  },
  {
    // croner (with sloppyRanges) stops `a/k` at Saturday: MON/2 is Mon, Wed, Fri; Sundial adds Sunday.
    name: 'day-of-week steps run up to 7 = Sunday',
    rewrite: (item, field) => {
      const [base = '', step] = item.split('/');
      return field === DAY_OF_WEEK && step !== undefined && base !== '*' && !base.includes('-')
        ? `${base}-7/${step}`
        : undefined;
    },
  },
];

/** A 6-field Sundial expression (seconds first) as a croner pattern, and the exceptions that shaped it. */
export function cronerPattern(fields: readonly string[]): { pattern: string; exceptions: string[] } {
  const exceptions = new Set<string>();
  const rewritten = fields.map((field, index) =>
    field
      .split(',')
      .map((item) => {
        for (const exception of EXCEPTIONS) {
          const rewrite = exception.rewrite(item, index, field);
          if (rewrite !== undefined) {
            exceptions.add(exception.name);
            return rewrite;
          }
        }
        return item;
      })
      .join(','),
  );
  return { pattern: rewritten.join(' '), exceptions: [...exceptions] };
}

function cron(pattern: string, timezone: string): Cron {
  return new Cron(pattern, { timezone, sloppyRanges: true, mode: '6-part' });
}

/** croner's fire times in `[from, until]` (whole seconds), in the zone, at most `limit`. */
export function cronerFires(pattern: string, timezone: string, from: EpochMs, until: EpochMs, limit = 1_000) {
  const job = cron(pattern, timezone);
  const fires: EpochMs[] = [];
  for (let run = job.nextRun(new Date(from - 1_000)); run && run.getTime() <= until; run = job.nextRun(run)) {
    fires.push(run.getTime());
    if (fires.length >= limit) break;
  }
  return fires;
}

export interface Transition {
  instant: EpochMs;
  offsetBefore: number;
  offsetAfter: number;
}

const offsetMs = (zone: IANAZone, instant: EpochMs) => zone.offset(instant) * MINUTE;

const FIRST_PROBE = Date.parse('2019-01-01T00:00:00Z');
const LAST_PROBE = Date.parse('2062-01-01T00:00:00Z');
const transitionsByZone = new Map<string, Transition[]>();

/** The zone's offset changes in `[from, until]` (2019 to 2061), found by weekly probes and bisection to the second. */
export function zoneTransitions(name: string, from: EpochMs, until: EpochMs): Transition[] {
  let all = transitionsByZone.get(name);
  if (all === undefined) {
    all = probeTransitions(IANAZone.create(name));
    transitionsByZone.set(name, all);
  }
  return all.filter(({ instant }) => instant >= from && instant <= until);
}

function probeTransitions(zone: IANAZone): Transition[] {
  const transitions: Transition[] = [];
  for (let low = FIRST_PROBE; low < LAST_PROBE; low += 7 * DAY) {
    let high = low + 7 * DAY;
    const offsetBefore = offsetMs(zone, low);
    const offsetAfter = offsetMs(zone, high);
    if (offsetBefore === offsetAfter) continue;
    let start = low;
    while (high - start > 1_000) {
      const middle = start + Math.floor((high - start) / 2_000) * 1_000;
      if (offsetMs(zone, middle) === offsetBefore) start = middle;
      else high = middle;
    }
    transitions.push({ instant: high, offsetBefore, offsetAfter });
  }
  return transitions;
}

/**
 * Sundial's DST policy (docs/triggers.md) around one offset change, applied to croner's matches
 * of wall-clock times (croner in UTC, where no DST exists): the fire times in `[from, until]`.
 * A fixed-hour schedule fires a wall time in a gap at the gap's end and a repeated one at its
 * first occurrence; a real-time one (hour field `*`) skips the gap and fires both occurrences.
 */
export function policyFires(
  pattern: string,
  hourIsWildcard: boolean,
  transition: Transition,
  from: EpochMs,
  until: EpochMs,
): EpochMs[] {
  const { instant, offsetBefore, offsetAfter } = transition;
  const low = Math.min(offsetBefore, offsetAfter);
  const high = Math.max(offsetBefore, offsetAfter);
  const instants = (wallTime: number): EpochMs[] => {
    if (wallTime < instant + low) return [wallTime - offsetBefore];
    if (wallTime >= instant + high) return [wallTime - offsetAfter];
    if (offsetAfter > offsetBefore) return hourIsWildcard ? [] : [instant];
    return hourIsWildcard ? [wallTime - offsetBefore, wallTime - offsetAfter] : [wallTime - offsetBefore];
  };
  const wallTimes = cronerFires(pattern, 'UTC', from + low, until + high, 100_000);
  const fires = new Set(wallTimes.flatMap(instants).filter((fire) => fire >= from && fire <= until));
  return [...fires].sort((a, b) => a - b);
}

/** True when `instant` lies within `margin` of one of the transitions. */
export function nearTransition(
  transitions: readonly Transition[],
  instant: EpochMs,
  margin: number,
): boolean {
  return transitions.some((transition) => Math.abs(transition.instant - instant) < margin);
}
