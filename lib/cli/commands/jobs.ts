import { isKnownTimeZone } from '../../core/triggers';
import { callAdmin } from '../admin/client';
import { adminCommand } from '../admin-command';
import type { FlagValues } from '../args';
import {
  definedFields,
  durationSeconds,
  jsonFlag,
  noPositionals,
  numberField,
  onePositional,
  text,
} from '../args';
import { UsageError } from '../command';
import { localWithRelative } from '../format/instants';
import { renderJobDetails, renderJobResult, renderJobTable } from '../format/jobs';
import { commandGroup } from '../group';

const ZONE_OPTION = { timezone: { type: 'string' } } as const;
const ZONE_HELP = '  --timezone <zone>  show times in this IANA time zone (default UTC)';

/** `--timezone` is the CLI's own display option, so it is checked here. */
function displayZone(values: FlagValues): string {
  const zone = text(values, 'timezone') ?? 'UTC';
  if (!isKnownTimeZone(zone))
    throw new UsageError(`--timezone: unknown time zone '${zone}'; use an IANA name such as 'Europe/Berlin'`);
  return zone;
}

const addJobCommand = adminCommand({
  name: 'add',
  summary: 'add one job of a task, now or later',
  usage: `Usage: sundial jobs add --task <task> [--payload <json>] [--run-at <ISO> | --in <duration>] [--id <job id>] [--conflict <policy>]

Adds a job (admin API add_job): it starts at --run-at (default now). Jobs starting within 15 min are
sent to the queue at once; later ones wait in the store until a tick sends them.

Options:
  --task <task>        the task to run
  --payload <json>     the JSON payload (default {})
  --run-at <ISO>       when to start, with Z or an offset (default now)
  --in <duration>      start this long from now: 30s, 10m, 2h
  --id <job id>        the job's id (default: a generated UUID)
  --conflict <policy>  when the id exists: exception (default), replace or do_nothing`,
  examples: [
    `sundial jobs add --task send-report --payload '{"team":"finance","recipients":["cfo@example.com"]}'`,
    `sundial jobs add --task http-ping --payload '{"url":"https://example.com"}' --in 10m --id ping-once`,
    `sundial jobs add --task send-report --run-at 2026-03-02T10:20:00+01:00 --payload '{"team":"ops","recipients":["ops@example.com"]}' --json`,
  ],
  options: {
    task: { type: 'string' },
    payload: { type: 'string' },
    'run-at': { type: 'string' },
    in: { type: 'string' },
    id: { type: 'string' },
    conflict: { type: 'string' },
  },
  async execute({ values, positionals, io, admin, print }) {
    noPositionals(positionals);
    const payload = text(values, 'payload');
    const request = definedFields({
      task: text(values, 'task'),
      payload: payload === undefined ? undefined : jsonFlag('payload', payload),
      run_at: runAt(values, io.clock.now()),
      job_id: text(values, 'id'),
      conflict_policy: text(values, 'conflict')?.replace(/-/g, '_'),
    });
    const fieldFlags = {
      task: '--task',
      payload: '--payload',
      run_at: text(values, 'in') ? '--in' : '--run-at',
      job_id: '--id',
      conflict_policy: '--conflict',
    };
    const result = await callAdmin(await admin(), 'add_job', request, fieldFlags);
    const { job } = result;
    const queued =
      { sent: 'sent to the queue', parked: 'parked until a tick sends it', not_sent: 'kept as it was' }[
        result.queued
      ] ?? result.queued;
    print(
      result,
      () =>
        `Job '${job.id}' (${job.task}) ${result.status}, ${queued}; runs ${localWithRelative(job.run_at, 'UTC', io.clock)}.`,
    );
    return undefined;
  },
});

function runAt(values: FlagValues, now: number): string | undefined {
  const at = text(values, 'run-at');
  const delay = text(values, 'in');
  if (at !== undefined && delay !== undefined) throw new UsageError('give --run-at or --in, not both');
  if (delay === undefined) return at;
  const seconds = durationSeconds(delay);
  if (seconds === undefined)
    throw new UsageError(`--in: '${delay}' is not a duration; use e.g. 30s, 10m or 2h`);
  return new Date(now + seconds * 1000).toISOString();
}

const getJobCommand = adminCommand({
  name: 'get',
  summary: 'show one job and its result',
  usage: `Usage: sundial jobs get <job id>

A job's fields (admin API get_job): status, times, attempts and, once finished, its result.
Job ids of schedule fires are <schedule id>@<fire time in epoch ms>.

Options:
${ZONE_HELP}`,
  examples: [
    'sundial jobs get report-2026-03',
    "sundial jobs get 'nightly@1772442000000' --timezone Europe/Berlin",
  ],
  options: ZONE_OPTION,
  async execute({ values, positionals, io, admin, print }) {
    const jobId = onePositional(positionals, 'job id', 'sundial jobs get <job id>');
    const zone = displayZone(values);
    const result = await callAdmin(await admin(), 'get_job', { job_id: jobId });
    print(result, () => renderJobDetails(result.job, zone, io.clock));
    return undefined;
  },
});

const listJobsCommand = adminCommand({
  name: 'list',
  summary: "list a schedule's or a task's jobs, newest first",
  usage: `Usage: sundial jobs list (--schedule <id> | --task <task>) [--status <status>] [--limit <n>] [--cursor <c>]

Jobs newest first (admin API list_jobs), with their status, duration and error.

Options:
  --schedule <id>    jobs of this schedule
  --task <task>      jobs of this task
  --status <status>  queued, running, retrying, success, error, missed_start_deadline, cancelled, abandoned
  --limit <n>        page size, 1-500 (default 50)
  --cursor <c>       the next page, from the previous page's cursor
${ZONE_HELP}`,
  examples: [
    'sundial jobs list --schedule nightly',
    'sundial jobs list --task send-report --status error --limit 10',
  ],
  options: {
    schedule: { type: 'string' },
    task: { type: 'string' },
    status: { type: 'string' },
    limit: { type: 'string' },
    cursor: { type: 'string' },
    ...ZONE_OPTION,
  },
  async execute({ values, positionals, io, admin, print }) {
    noPositionals(positionals);
    const zone = displayZone(values);
    const limit = text(values, 'limit');
    const request = definedFields({
      schedule_id: text(values, 'schedule'),
      task: text(values, 'task'),
      status: text(values, 'status'),
      limit: limit === undefined ? undefined : numberField(limit),
      cursor: text(values, 'cursor'),
    });
    const fieldFlags = {
      schedule_id: '--schedule',
      task: '--task',
      status: '--status',
      limit: '--limit',
      cursor: '--cursor',
    };
    const result = await callAdmin(await admin(), 'list_jobs', request, fieldFlags);
    print(result, () => {
      const more = result.cursor === null ? '' : `\n\nMore jobs: add --cursor ${result.cursor}`;
      return `${renderJobTable(result.jobs, zone, io.clock)}${more}`;
    });
    return undefined;
  },
});

const jobResultCommand = adminCommand({
  name: 'result',
  summary: "show a finished job's result: return value or error",
  usage: `Usage: sundial jobs result <job id>

The result of a finished job (admin API get_job_result): outcome, return value or error with its
stack, timings and attempt. A job that has not finished yet fails with no_result_yet (exit 1).

Options:
${ZONE_HELP}`,
  examples: ['sundial jobs result report-2026-03', 'sundial jobs result report-2026-03 --json'],
  options: ZONE_OPTION,
  async execute({ values, positionals, io, admin, print }) {
    const jobId = onePositional(positionals, 'job id', 'sundial jobs result <job id>');
    const zone = displayZone(values);
    const result = await callAdmin(await admin(), 'get_job_result', { job_id: jobId });
    print(result, () => renderJobResult(result.result, zone, io.clock));
    return undefined;
  },
});

const cancelJobCommand = adminCommand({
  name: 'cancel',
  summary: 'cancel a job that has not started',
  usage: `Usage: sundial jobs cancel <job id>

Cancels a queued or retrying job (admin API cancel_job): it never runs. A job that has started or
finished fails with job_not_cancellable (exit 1).

Options:`,
  examples: ['sundial jobs cancel report-2026-03'],
  options: {},
  async execute({ positionals, admin, print }) {
    const jobId = onePositional(positionals, 'job id', 'sundial jobs cancel <job id>');
    const result = await callAdmin(await admin(), 'cancel_job', { job_id: jobId });
    print(result, () => `Cancelled job '${result.job.id}' (${result.job.task}).`);
    return undefined;
  },
});

export const jobsCommand = commandGroup({
  name: 'jobs',
  summary: 'add jobs, read them and their results, cancel them',
  description: `Jobs are single runs of a task: from a schedule's fire time, from 'schedules run', or added directly.
Finished jobs keep their result for the task's resultTtlSeconds.`,
  subcommands: [addJobCommand, getJobCommand, listJobsCommand, jobResultCommand, cancelJobCommand],
});
