import { callAdmin } from '../../admin/client';
import type { WireSchedule } from '../../admin/wire';
import { adminCommand } from '../../admin-command';
import { UsageError } from '../../command';
import { localWithRelative } from '../../format/instants';
import { fireDispatchedNow, upcomingFire } from '../../format/next-fire';
import { renderScheduleDetails } from '../../format/schedules';
import type { CliIo } from '../../io';
import { definedFields, numberField, policyValue } from '../../option-values';
import { scheduleFieldFlags, scheduleFields, withScheduleFieldOptions } from './fields';

export const addScheduleCommand = adminCommand({
  name: 'add',
  summary: 'add a schedule: a trigger bound to a task and a payload',
  usage: "--task <task> (--cron '<expr>' | --every <duration> | --at <ISO> | --trigger <json>) [options]",
  description: `Stores a schedule (admin API add_schedule). Fire times inside the next 90 s are dispatched at once.
The admin API checks every field and reports each problem with its path.`,
  examples: [
    `sundial schedules add --id nightly --task send-report --cron '0 9 * * MON-FRI' --timezone Europe/Berlin --payload '{"team":"ops","recipients":["ops@example.com"]}'`,
    'sundial schedules add --id ping --task http-ping --every 30s --payload \'{"url":"https://example.com"}\' --tag monitoring',
    `sundial schedules add --id launch --task send-report --at 2026-05-01T09:30:00+02:00 --payload '{"team":"launch","recipients":["a@example.com"]}'`,
    `sundial schedules add --id nightly --task send-report --cron '0 3 * * *' --conflict replace --misfire-grace 10m --jitter 30s`,
    `sundial schedules add --id acme-sync --task sync --every 1h --metadata tenant=acme --metadata tier=gold --description 'Hourly sync of acme' --max-attempts 5 --timeout-seconds 30`,
    `sundial schedules add --id trial --task send-report --cron '0 9 * * *' --max-runs 3 --keep-finished`,
    `sundial schedules add --id invoices --task send-report --every 5m --priority critical`,
  ],
  declare: (command) =>
    withScheduleFieldOptions(command.option('--id <id>', "the schedule's id (default: a generated UUID)"))
      .option('--paused', 'add it paused')
      .option(
        '--conflict <policy>',
        'when the id exists: exception (default), replace or do_nothing',
        policyValue,
      ),
  async execute({ options, io, admin, print }) {
    const request = definedFields({
      id: options.id,
      ...scheduleFields(options),
      paused: options.paused,
      conflict_policy: options.conflict,
    });
    const result = await callAdmin(await admin(), 'add_schedule', request, scheduleFieldFlags(options));
    const verb = { added: 'Added', replaced: 'Replaced', kept: 'Kept the existing' }[result.status];
    print(result, () => writtenSummary(`${verb} schedule`, result, io));
    return undefined;
  },
});

export const updateScheduleCommand = adminCommand({
  name: 'update',
  summary: 'change some fields of a schedule',
  description: `Changes only the fields whose flags are given (admin API update_schedule). A new trigger gets a new
next fire time counted from now; --payload and --tag replace the stored payload and tags.`,
  examples: [
    `sundial schedules update nightly --cron '30 6 * * MON-FRI' --timezone Europe/Berlin`,
    `sundial schedules update nightly --payload '{"team":"finance","recipients":["cfo@example.com"]}' --expected-version 3`,
    'sundial schedules update ping --every 1m --jitter 5s',
    'sundial schedules update acme-sync --max-attempts none --metadata tenant=acme --description ""',
    'sundial schedules update invoices --priority none',
    'sundial schedules update trial --max-runs none --no-keep-finished',
  ],
  declare: (command) =>
    withScheduleFieldOptions(command.argument('<id>', 'the schedule id')).option(
      '--expected-version <n>',
      'fail with version_conflict if the schedule changed since version n',
      numberField,
    ),
  async execute({ args: [id], options, io, admin, print }) {
    const changes = scheduleFields(options);
    if (Object.keys(changes).length === 0) {
      throw new UsageError(
        'nothing to change: give at least one of --task, --cron, --every, --at, --trigger, --payload, --tag, --coalesce, --misfire-grace, --jitter, --description, --max-attempts, --backoff-seconds, --timeout-seconds, --result-ttl-seconds, --metadata, --max-runs, --priority, --keep-finished',
      );
    }
    const request = definedFields({
      id,
      ...changes,
      expected_version: options.expectedVersion,
    });
    const result = await callAdmin(await admin(), 'update_schedule', request, scheduleFieldFlags(options));
    print(result, () => writtenSummary('Updated schedule', result, io));
    return undefined;
  },
});

/**
 * `Added schedule 'nightly' (send-report): next fire … (in 3 h); 2 jobs dispatched now.` plus its details;
 * `fires now, next fire …` when the change dispatched a fire that runs at once.
 */
export function writtenSummary(
  what: string,
  result: { dispatched_jobs: number; schedule: WireSchedule },
  io: CliIo,
) {
  const { schedule } = result;
  const now = io.clock.now();
  const upcoming = upcomingFire(schedule, now);
  const nextFire = `next fire ${localWithRelative(upcoming === null ? null : new Date(upcoming).toISOString(), schedule.timezone, io.clock)}`;
  const firesNow = fireDispatchedNow(schedule, result.dispatched_jobs, now) !== undefined;
  const next = schedule.paused
    ? 'paused'
    : firesNow
      ? `fires now, ${upcoming === null ? 'no fire after it' : nextFire}`
      : nextFire;
  const dispatched =
    result.dispatched_jobs > 0
      ? `; ${result.dispatched_jobs} job${result.dispatched_jobs === 1 ? '' : 's'} dispatched now`
      : '';
  return `${what} '${schedule.id}' (${schedule.task}): ${next}${dispatched}.\n\n${renderScheduleDetails(schedule, io.clock)}`;
}
