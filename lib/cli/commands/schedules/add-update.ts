import { callAdmin } from '../../admin/client';
import type { WireSchedule } from '../../admin/wire';
import { adminCommand } from '../../admin-command';
import { definedFields, flag, onePositional, text } from '../../args';
import { UsageError } from '../../command';
import { localWithRelative } from '../../format/instants';
import { upcomingFire } from '../../format/next-fire';
import { renderScheduleDetails } from '../../format/schedules';
import type { CliIo } from '../../io';
import {
  conflictField,
  expectedVersionField,
  SCHEDULE_FIELD_HELP,
  SCHEDULE_FIELD_OPTIONS,
  scheduleFieldFlags,
  scheduleFields,
} from './fields';

export const addScheduleCommand = adminCommand({
  name: 'add',
  summary: 'add a schedule: a trigger bound to a task and a payload',
  usage: `Usage: sundial schedules add --task <task> (--cron '<expr>' | --every <duration> | --at <ISO> | --trigger <json>) [options]

Stores a schedule (admin API add_schedule). Fire times inside the next 90 s are dispatched at once.
The admin API checks every field and reports each problem with its path.

Options:
  --id <id>                 the schedule's id (default: a generated UUID)
${SCHEDULE_FIELD_HELP}
  --paused                  add it paused
  --conflict <policy>       when the id exists: exception (default), replace or do_nothing`,
  examples: [
    `sundial schedules add --id nightly --task send-report --cron '0 9 * * MON-FRI' --timezone Europe/Berlin --payload '{"team":"ops","recipients":["ops@example.com"]}'`,
    'sundial schedules add --id ping --task http-ping --every 30s --payload \'{"url":"https://example.com"}\' --tag monitoring',
    `sundial schedules add --id launch --task send-report --at 2026-05-01T09:30:00+02:00 --payload '{"team":"launch","recipients":["a@example.com"]}'`,
    `sundial schedules add --id nightly --task send-report --cron '0 3 * * *' --conflict replace --misfire-grace 10m --jitter 30s`,
  ],
  options: {
    id: { type: 'string' },
    ...SCHEDULE_FIELD_OPTIONS,
    paused: { type: 'boolean' },
    conflict: { type: 'string' },
  },
  async execute({ values, positionals, io, admin, print }) {
    if (positionals.length > 0) {
      throw new UsageError(`unexpected argument '${positionals[0]}'; give the id with --id`);
    }
    const request = definedFields({
      id: text(values, 'id'),
      ...scheduleFields(values),
      paused: flag(values, 'paused') ? true : undefined,
      conflict_policy: conflictField(values),
    });
    const result = await callAdmin(await admin(), 'add_schedule', request, scheduleFieldFlags(values));
    const verb = { added: 'Added', replaced: 'Replaced', kept: 'Kept the existing' }[result.status];
    print(result, () => writtenSummary(`${verb} schedule`, result, io));
    return undefined;
  },
});

export const updateScheduleCommand = adminCommand({
  name: 'update',
  summary: 'change some fields of a schedule',
  usage: `Usage: sundial schedules update <id> [options]

Changes only the fields whose flags are given (admin API update_schedule). A new trigger gets a new
next fire time counted from now; --payload and --tag replace the stored payload and tags.

Options:
${SCHEDULE_FIELD_HELP}
  --expected-version <n>    fail with version_conflict if the schedule changed since version n`,
  examples: [
    `sundial schedules update nightly --cron '30 6 * * MON-FRI' --timezone Europe/Berlin`,
    `sundial schedules update nightly --payload '{"team":"finance","recipients":["cfo@example.com"]}' --expected-version 3`,
    'sundial schedules update ping --every 1m --jitter 5s',
  ],
  options: { ...SCHEDULE_FIELD_OPTIONS, 'expected-version': { type: 'string' } },
  async execute({ values, positionals, io, admin, print }) {
    const id = onePositional(positionals, 'schedule id', 'sundial schedules update <id> [options]');
    const changes = scheduleFields(values);
    if (Object.keys(changes).length === 0) {
      throw new UsageError(
        'nothing to change: give at least one of --task, --cron, --every, --at, --trigger, --payload, --tag, --coalesce, --misfire-grace, --jitter',
      );
    }
    const request = definedFields({
      id,
      ...changes,
      expected_version: expectedVersionField(values),
    });
    const result = await callAdmin(await admin(), 'update_schedule', request, scheduleFieldFlags(values));
    print(result, () => writtenSummary('Updated schedule', result, io));
    return undefined;
  },
});

/** `Added schedule 'nightly' (send-report): next fire … (in 3 h); 2 jobs dispatched now.` plus its details. */
export function writtenSummary(
  what: string,
  result: { dispatched_jobs: number; schedule: WireSchedule },
  io: CliIo,
) {
  const { schedule } = result;
  const upcoming = upcomingFire(schedule, io.clock.now());
  const next = schedule.paused
    ? 'paused'
    : `next fire ${localWithRelative(upcoming === null ? null : new Date(upcoming).toISOString(), schedule.timezone, io.clock)}`;
  const dispatched =
    result.dispatched_jobs > 0
      ? `; ${result.dispatched_jobs} job${result.dispatched_jobs === 1 ? '' : 's'} dispatched now`
      : '';
  return `${what} '${schedule.id}' (${schedule.task}): ${next}${dispatched}.\n\n${renderScheduleDetails(schedule, io.clock)}`;
}
