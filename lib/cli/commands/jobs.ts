import { Option } from '@commander-js/extra-typings';
import { callAdmin } from '../admin/client';
import { adminCommand } from '../admin-command';
import { localWithRelative } from '../format/instants';
import { renderJobDetails, renderJobResult, renderJobTable } from '../format/jobs';
import { commandGroup } from '../group';
import {
  definedFields,
  delaySeconds,
  displayZone,
  graceField,
  jsonValue,
  noneAsNull,
  numberField,
  policyValue,
} from '../option-values';
import {
  metadataEntry,
  OVERRIDE_FIELD_FLAGS,
  overrideFields,
  withOverrideOptions,
} from './lifecycle-options';

/** `--timezone`, the CLI's own display option: checked and defaulted here. */
const zoneOption = () =>
  new Option('--timezone <zone>', 'show times in this IANA time zone')
    .default('UTC', 'UTC')
    .argParser(displayZone);

const addJobCommand = adminCommand({
  name: 'add',
  summary: 'add one job of a task, now or later',
  usage:
    '--task <task> [--payload <json>] [--run-at <ISO> | --in <duration>] [--id <job id>] [--conflict <policy>] [--metadata <key=value>]... [overrides]',
  description: `Adds a job (admin API add_job): it starts at --run-at (default: now). Jobs starting within 15 min are
sent to the queue at once; later ones wait in the store until a tick sends them.`,
  examples: [
    `sundial jobs add --task send-report --payload '{"team":"finance","recipients":["cfo@example.com"]}'`,
    `sundial jobs add --task http-ping --payload '{"url":"https://example.com"}' --in 10m --id ping-once`,
    `sundial jobs add --task send-report --run-at 2026-03-02T10:20:00+01:00 --payload '{"team":"ops","recipients":["ops@example.com"]}' --json`,
    `sundial jobs add --task http-ping --payload '{"url":"https://example.com"}' --max-attempts 1 --timeout-seconds 10 --metadata source=cli`,
  ],
  declare: (command) =>
    withOverrideOptions(command)
      .option('--task <task>', 'the task to run')
      .option(
        '--misfire-grace <secs>',
        "how late the job may still start, instead of the task's misfireGraceSeconds: 90, 10m, or none",
        graceField,
      )
      .option('--payload <json>', 'the JSON payload (default: {})', jsonValue)
      .addOption(
        new Option('--run-at <ISO>', 'when to start, with Z or an offset (default: now)').conflicts('in'),
      )
      .option('--in <duration>', 'start this long from now: 30s, 10m, 2h', delaySeconds)
      .option('--id <job id>', "the job's id (default: a generated UUID)")
      .option(
        '--conflict <policy>',
        'when the id exists: exception (default), replace or do_nothing',
        policyValue,
      ),
  async execute({ options, io, admin, print }) {
    const delay = options.in;
    const request = definedFields({
      task: options.task,
      payload: options.payload,
      run_at: delay === undefined ? options.runAt : new Date(io.clock.now() + delay * 1000).toISOString(),
      job_id: options.id,
      conflict_policy: options.conflict,
      misfire_grace_seconds: noneAsNull(options.misfireGrace),
      ...overrideFields(options),
    });
    const fieldFlags = {
      ...OVERRIDE_FIELD_FLAGS,
      misfire_grace_seconds: '--misfire-grace',
      task: '--task',
      payload: '--payload',
      run_at: delay === undefined ? '--run-at' : '--in',
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

const getJobCommand = adminCommand({
  name: 'get',
  summary: 'show one job and its result',
  description: `A job's fields (admin API get_job): status, times, attempts and, once finished, its result.

Job ids of schedule fires are <schedule id>@<fire time in epoch ms>.`,
  examples: [
    'sundial jobs get report-2026-03',
    "sundial jobs get 'nightly@1772442000000' --timezone Europe/Berlin",
  ],
  declare: (command) => command.argument('<job-id>', 'the job id').addOption(zoneOption()),
  async execute({ args: [jobId], options, io, admin, print }) {
    const result = await callAdmin(await admin(), 'get_job', { job_id: jobId });
    print(result, () => renderJobDetails(result.job, options.timezone, io.clock));
    return undefined;
  },
});

const listJobsCommand = adminCommand({
  name: 'list',
  summary: "list a schedule's or a task's jobs, newest first",
  usage: '(--schedule <id> | --task <task>) [--status <status>] [--limit <n>] [--cursor <c>] [options]',
  description: 'Jobs newest first (admin API list_jobs), with their status, duration and error.',
  examples: [
    'sundial jobs list --schedule nightly',
    'sundial jobs list --task send-report --status error --limit 10',
    'sundial jobs list --task sync --metadata tenant=acme',
  ],
  declare: (command) =>
    command
      .option('--schedule <id>', 'jobs of this schedule')
      .option('--task <task>', 'jobs of this task')
      .option(
        '--status <status>',
        'queued, running, retrying, success, error, missed_start_deadline, cancelled, abandoned',
      )
      .option(
        '--metadata <key=value>',
        'only jobs with this metadata entry (repeat: all must match)',
        metadataEntry,
      )
      .option('--limit <n>', 'page size, 1-500 (default: 50)', numberField)
      .option('--cursor <c>', "the next page, from the previous page's cursor")
      .addOption(zoneOption()),
  async execute({ options, io, admin, print }) {
    const request = definedFields({
      schedule_id: options.schedule,
      task: options.task,
      status: options.status,
      metadata: options.metadata,
      limit: options.limit,
      cursor: options.cursor,
    });
    const fieldFlags = {
      schedule_id: '--schedule',
      task: '--task',
      status: '--status',
      metadata: '--metadata',
      limit: '--limit',
      cursor: '--cursor',
    };
    const result = await callAdmin(await admin(), 'list_jobs', request, fieldFlags);
    print(result, () => {
      const more = result.cursor === null ? '' : `\n\nMore jobs: add --cursor ${result.cursor}`;
      return `${renderJobTable(result.jobs, options.timezone, io.clock)}${more}`;
    });
    return undefined;
  },
});

const jobResultCommand = adminCommand({
  name: 'result',
  summary: "show a finished job's result: return value or error",
  description: `The result of a finished job (admin API get_job_result): outcome, return value or error with its
stack, timings and attempt. A job that has not finished yet fails with no_result_yet (exit 1).`,
  examples: ['sundial jobs result report-2026-03', 'sundial jobs result report-2026-03 --json'],
  declare: (command) => command.argument('<job-id>', 'the job id').addOption(zoneOption()),
  async execute({ args: [jobId], options, io, admin, print }) {
    const result = await callAdmin(await admin(), 'get_job_result', { job_id: jobId });
    print(result, () => renderJobResult(result.result, options.timezone, io.clock));
    return undefined;
  },
});

const cancelJobCommand = adminCommand({
  name: 'cancel',
  summary: 'cancel a job that has not started',
  description: `Cancels a queued or retrying job (admin API cancel_job): it never runs. A job that has started or
finished fails with job_not_cancellable (exit 1).`,
  examples: ['sundial jobs cancel report-2026-03'],
  declare: (command) => command.argument('<job-id>', 'the job id'),
  async execute({ args: [jobId], admin, print }) {
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
