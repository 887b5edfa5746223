import type { Clock } from '../../core/clock';
import { relativeTime } from '../../core/format/durations';
import { scheduleState } from '../../core/format/schedule-state';
import { timeInZone } from '../../core/format/time-in-zone';
import { describeTrigger } from '../../core/format/triggers';
import { isoInZone } from '../../core/instants';
import type { WireFireTime, WireSchedule } from '../admin/wire';
import { localWithRelative } from './instants';
import { upcomingFire } from './next-fire';
import { metadataText, overrideAndMetadataLines } from './overrides-and-metadata';
import { renderFields, renderTable } from './table';

/** `paused`, `finished` (no fire time left, dispatched or not) or `active`. */
function stateAt(schedule: WireSchedule, now: number): string {
  return scheduleState(schedule, upcomingFire(schedule, now));
}

function isoOrNull(instant: number | null): string | null {
  return instant === null ? null : isoInZone(instant, 'UTC');
}

/**
 * The schedules as a table; next fire times in each schedule's own time zone, with how far away
 * they are.
 */
export function renderScheduleTable(
  schedules: readonly WireSchedule[],
  clock: Clock,
  options: { wide?: boolean } = {},
): string {
  if (schedules.length === 0) return 'No schedules.';
  if (options.wide) return renderWideScheduleTable(schedules, clock);
  const rows = schedules.map((schedule) => [
    schedule.id,
    schedule.task,
    describeTrigger(schedule.trigger),
    schedule.timezone,
    schedule.paused
      ? '-'
      : localWithRelative(isoOrNull(upcomingFire(schedule, clock.now())), schedule.timezone, clock),
    stateAt(schedule, clock.now()),
    schedule.tags.join(','),
  ]);
  return renderTable(['ID', 'TASK', 'TRIGGER', 'ZONE', 'NEXT FIRE (schedule’s zone)', 'STATE', 'TAGS'], rows);
}

/** Every field of one schedule, times in its zone and in UTC. */
export function renderScheduleDetails(schedule: WireSchedule, clock: Clock): string {
  const zone = schedule.timezone;
  const next = isoOrNull(upcomingFire(schedule, clock.now()));
  const undispatched = schedule.next_fire_time;
  const last = schedule.last_fire_time;
  const dispatchNote: [string, string][] =
    next !== null && undispatched !== null && Date.parse(next) !== Date.parse(undispatched)
      ? [['next to dispatch', `${localWithRelative(undispatched, zone, clock)}  ${undispatched}`]]
      : [];
  return renderFields([
    ['id', schedule.id],
    ['task', schedule.task],
    ['trigger', `${describeTrigger(schedule.trigger)}  ${JSON.stringify(schedule.trigger)}`],
    ['time zone', zone],
    ['state', stateAt(schedule, clock.now())],
    ['next fire', next === null ? '-' : `${localWithRelative(next, zone, clock)}  ${next}`],
    ...dispatchNote,
    ['last dispatched', last === null ? '-' : `${localWithRelative(last, zone, clock)}  ${last}`],
    ['payload', JSON.stringify(schedule.payload)],
    ['coalesce', schedule.coalesce],
    [
      'misfire grace',
      schedule.misfire_grace_seconds === null ? 'none' : `${schedule.misfire_grace_seconds} s`,
    ],
    ['max jitter', `${schedule.max_jitter_seconds} s`],
    ['tags', schedule.tags.join(', ') || '-'],
    ['priority', schedule.priority ?? 'normal'],
    ...overrideAndMetadataLines(schedule),
    ['runs', schedule.max_runs === null ? String(schedule.runs) : `${schedule.runs} of ${schedule.max_runs}`],
    ['when finished', schedule.keep_finished ? 'kept' : 'removed after its last job'],
    ['version', String(schedule.version)],
    ['created', `${schedule.created_at} (${relativeTime(Date.parse(schedule.created_at), clock.now())})`],
    ['updated', `${schedule.updated_at} (${relativeTime(Date.parse(schedule.updated_at), clock.now())})`],
  ]);
}

/** The fire times of `preview_schedule`: number, wall-clock time in the zone, UTC, and how far away. */
export function renderFireTimes(fireTimes: readonly WireFireTime[], zone: string, clock: Clock): string {
  if (fireTimes.length === 0) return 'No fire times: the trigger has finished.';
  const rows = fireTimes.map((fire, index) => {
    const instant = Date.parse(fire.utc);
    return [String(index + 1), timeInZone(instant, zone), fire.utc, relativeTime(instant, clock.now())];
  });
  return renderTable(['#', zone, 'UTC', 'WHEN'], rows);
}

/** The table of `schedules list --wide`: id, task, state, description and metadata. */
function renderWideScheduleTable(schedules: readonly WireSchedule[], clock: Clock): string {
  const rows = schedules.map((schedule) => [
    schedule.id,
    schedule.task,
    describeTrigger(schedule.trigger),
    stateAt(schedule, clock.now()),
    schedule.tags.join(','),
    schedule.description ?? '',
    metadataText(schedule.metadata),
  ]);
  return renderTable(['ID', 'TASK', 'TRIGGER', 'STATE', 'TAGS', 'DESCRIPTION', 'METADATA'], rows);
}
