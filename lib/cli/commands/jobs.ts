import { Option } from '@commander-js/extra-typings';
import { LIMITS } from '../../core/limits';
import { callAdmin } from '../admin/client';
import { adminCommand } from '../admin-command';
import { EXIT_OPERATION_FAILED } from '../command';
import { localWithRelative } from '../format/instants';
import { renderJobCounts, renderJobDetails, renderJobResult, renderJobTable } from '../format/jobs';
import { commandGroup } from '../group';
import {
  definedFields,
  delaySeconds,
  displayZone,
  durationSeconds,
  graceField,
  jsonValue,
  noneAsNull,
  numberField,
  policyValue,
  secondsField,
  sinceValue,
} from '../option-values';
import { metadataEntry, OVERRIDE_FIELD_FLAGS, overrideFields, withOverrideOptions } from './override-options';

/** `--timezone`, the CLI's own display option: checked and defaulted here. */
const zoneOption = () =>
  new Option('--timezone <zone>', 'show times in this IANA time zone')
    .default('UTC', 'UTC')
    .argParser(displayZone);

const addJobCommand = adminCommand({
  name: 'add',
  summary: 'add one job of a task, now or later',
  usage:
    '--task <task> [--payload <json>] [--run-at <ISO> | --in <duration>] [--id <job id>] [--conflict <policy>] [--priority <level>] [--metadata <key=value>]... [overrides]',
  description: `Adds a job (admin API add_job): it starts at --run-at (default: now). Jobs starting within 15 min are
sent to the queue at once; later ones wait in the store until a tick sends them.`,
  examples: [
    `sundial jobs add --task send-report --payload '{"team":"finance","recipients":["cfo@example.com"]}'`,
    `sundial jobs add --task http-ping --payload '{"url":"https://example.com"}' --in 10m --id ping-once`,
    `sundial jobs add --task send-report --run-at 2026-03-02T10:20:00+01:00 --payload '{"team":"ops","recipients":["ops@example.com"]}' --json`,
    `sundial jobs add --task http-ping --payload '{"url":"https://example.com"}' --max-attempts 1 --timeout-seconds 10 --metadata source=cli`,
    `sundial jobs add --task slow-task --payload '{"ms":100}' --priority critical`,
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
      )
      .option(
        '--priority <level>',
        'normal (default) or critical: under a backlog of its task, a critical job starts before normal ones',
      ),
  async execute({ options, io, admin, print }) {
    const delay = options.in;
    const request = definedFields({
      task: options.task,
      payload: options.payload,
      run_at: delay === undefined ? options.runAt : new Date(io.clock.now() + delay * 1000).toISOString(),
      job_id: options.id,
      conflict_policy: options.conflict,
      priority: options.priority,
      misfire_grace_seconds: noneAsNull(options.misfireGrace),
      ...overrideFields(options),
    });
    const fieldFlags = {
      ...OVERRIDE_FIELD_FLAGS,
      priority: '--priority',
      misfire_grace_seconds: '--misfire-grace',
      task: '--task',
      payload: '--payload',
      run_at: delay === undefined ? '--run-at' : '--in',
      job_id: '--id',
      conflict_policy: '--conflict',
    };
    const result = await callAdmin(await admin(), 'add_job', request, fieldFlags);
    const { job } = result;
    if (result.queued === 'refused') {
      print(
        result,
        () => `Job '${job.id}' (${job.task}) ${result.status}, but ${job.result?.error?.message}.`,
      );
      return EXIT_OPERATION_FAILED;
    }
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

/** `--since 24h` (that long ago) or an instant, as the admin API's ISO string. */
function instantOrAgo(text: string | undefined, now: number): string | undefined {
  if (text === undefined) return undefined;
  const seconds = durationSeconds(text);
  return seconds === undefined ? text : new Date(now - seconds * 1000).toISOString();
}

const listJobsCommand = adminCommand({
  name: 'list',
  summary: "list a schedule's or a task's jobs, or failed jobs of every task",
  usage:
    '(--schedule <id> | --task <task>) [--status <status>] | --status <failure> [--since <when>] [--until <ISO>] [options]',
  description: `Jobs newest first (admin API list_jobs), with their status, duration and error. A schedule's jobs
are those that ran or run now, and its fires that are due; --status queued lists its fires waiting in
the queue too (a task's listing has no such fires: list them by schedule).

With --status alone (error, missed_start_deadline, abandoned or cancelled): such jobs of every task, latest
finish first; --since (an instant, or a duration ago: 24h) and --until narrow their finish time.`,
  examples: [
    'sundial jobs list --schedule nightly',
    'sundial jobs list --schedule nightly --status queued',
    'sundial jobs list --task send-report --status error --limit 10',
    'sundial jobs list --task sync --metadata tenant=acme',
    'sundial jobs list --status error --since 24h',
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
      .option(
        '--since <when>',
        'with --status alone: finished at or after this instant, or this long ago',
        sinceValue,
      )
      .option('--until <ISO>', 'with --status alone: finished before this instant')
      .option('--limit <n>', 'page size, 1-500 (default: 50)', numberField)
      .option('--cursor <c>', "the next page, from the previous page's cursor")
      .addOption(zoneOption()),
  async execute({ options, io, admin, print }) {
    const request = definedFields({
      schedule_id: options.schedule,
      task: options.task,
      status: options.status,
      metadata: options.metadata,
      since: instantOrAgo(options.since, io.clock.now()),
      until: options.until,
      limit: options.limit,
      cursor: options.cursor,
    });
    const fieldFlags = {
      schedule_id: '--schedule',
      task: '--task',
      status: '--status',
      metadata: '--metadata',
      since: '--since',
      until: '--until',
      limit: '--limit',
      cursor: '--cursor',
    };
    const result = await callAdmin(await admin(), 'list_jobs', request, fieldFlags);
    print(result, () => {
      const more = result.cursor === null ? '' : `\n\nMore jobs: add --cursor ${result.cursor}`;
      // A fire waits in the queue without a job record (ADR 0002): it is listed by its schedule only.
      const fires =
        options.task !== undefined && options.schedule === undefined && options.status === 'queued'
          ? `\n\nFires of ${options.task}'s schedules that wait in the queue are listed by schedule: sundial jobs list --schedule ID --status queued`
          : '';
      return `${renderJobTable(result.jobs, options.timezone, io.clock)}${more}${fires}`;
    });
    return undefined;
  },
});

/** `--wait [seconds]`: wait for the result, the longest the admin API allows when no value is given. */
const waitOption = (summary: string) =>
  new Option(
    '--wait [seconds]',
    `${summary} (up to ${LIMITS.maxResultWaitSeconds} s, the default)`,
  ).argParser(secondsField);

/** The `wait_seconds` of a `--wait` flag: absent, given alone (`true`: the API's longest) or with a value. */
function waitSeconds(flag: number | string | true | undefined, absent: 0 | undefined) {
  if (flag === undefined) return absent;
  return flag === true ? LIMITS.maxResultWaitSeconds : flag;
}

const jobResultCommand = adminCommand({
  name: 'result',
  summary: "show a finished job's result: return value or error",
  usage: '<job-id> [--wait [seconds]] [options]',
  description: `The result of a finished job (admin API get_job_result): outcome, return value or error with its
stack, timings and attempt. A job that has not finished yet fails with no_result_yet (exit 1); with --wait,
only once the wait ran out.`,
  examples: ['sundial jobs result report-2026-03', 'sundial jobs result report-2026-03 --wait 20s --json'],
  declare: (command) =>
    command
      .argument('<job-id>', 'the job id')
      .addOption(waitOption('wait for the job to finish'))
      .addOption(zoneOption()),
  async execute({ args: [jobId], options, io, admin, print }) {
    const request = definedFields({ job_id: jobId, wait_seconds: waitSeconds(options.wait, undefined) });
    const result = await callAdmin(await admin(), 'get_job_result', request, { wait_seconds: '--wait' });
    print(result, () => renderJobResult(result.result, options.timezone, io.clock));
    return undefined;
  },
});

const runJobCommand = adminCommand({
  name: 'run',
  summary: 'add a job and wait for its result',
  usage: '<task> [--payload <json>] [--id <job id>] [--wait [seconds]] [options]',
  description: `Adds a job that starts now and, with --wait, waits for its result (admin API run_job). Prints the
result as 'jobs result' does; exits 1 when the job did not succeed. When the wait runs out first, it prints
the job's status: read the result later with 'sundial jobs result <job id>'.`,
  examples: [
    `sundial jobs run send-report --payload '{"team":"ops","recipients":["ops@example.com"]}' --wait`,
    `sundial jobs run slow-task --payload '{"ms":500}' --id slow-now --wait 10s --json`,
  ],
  declare: (command) =>
    command
      .argument('<task>', 'the task to run')
      .option('--payload <json>', 'the JSON payload (default: {})', jsonValue)
      .option('--id <job id>', "the job's id (default: a generated UUID)")
      .addOption(waitOption('wait for the result'))
      .addOption(zoneOption()),
  async execute({ args: [task], options, io, admin, print }) {
    const request = definedFields({
      task,
      payload: options.payload,
      job_id: options.id,
      wait_seconds: waitSeconds(options.wait, 0),
    });
    const fieldFlags = { payload: '--payload', job_id: '--id', wait_seconds: '--wait' };
    const answer = await callAdmin(await admin(), 'run_job', request, fieldFlags);
    const { result } = answer;
    print(answer, () =>
      result === null
        ? `Job '${answer.job_id}' (${task}) is ${answer.status}. Its result: sundial jobs result ${answer.job_id} --wait`
        : renderJobResult(result, options.timezone, io.clock),
    );
    return result !== null && result.outcome !== 'success' ? EXIT_OPERATION_FAILED : undefined;
  },
});

const countJobsCommand = adminCommand({
  name: 'count',
  summary: 'count jobs by status, per task',
  usage: '[--task <task>] [--since <when>] [--max-jobs <n>] [options]',
  description: `How many jobs each task has in each status (admin API count_jobs), among its newest --max-jobs
(default 1000) whose results are kept; --since (an instant, or a duration ago: 24h) counts only jobs that
run from then on.`,
  examples: ['sundial jobs count', 'sundial jobs count --task send-report --since 24h --json'],
  declare: (command) =>
    command
      .option('--task <task>', 'only this task (default: every task)')
      .option('--since <when>', 'only jobs that run at or after this instant, or this long ago', sinceValue)
      .option('--max-jobs <n>', 'count at most this many newest jobs per task, 1-5000', numberField),
  async execute({ options, io, admin, print }) {
    const request = definedFields({
      task: options.task,
      since: instantOrAgo(options.since, io.clock.now()),
      max_jobs: options.maxJobs,
    });
    const fieldFlags = { task: '--task', since: '--since', max_jobs: '--max-jobs' };
    const result = await callAdmin(await admin(), 'count_jobs', request, fieldFlags);
    print(result, () => renderJobCounts(result.tasks));
    return undefined;
  },
});

const retryJobCommand = adminCommand({
  name: 'retry',
  summary: 'run a job that failed for good again',
  description: `A new attempt of a job that ended in error, missed_start_deadline or abandoned (admin API retry_job),
sent to the queue at once; its earlier outcomes stay visible in 'jobs get'. Any other job fails with
job_not_retryable (exit 1).`,
  examples: ['sundial jobs retry report-2026-03', 'sundial jobs list --status error --since 24h'],
  declare: (command) => command.argument('<job-id>', 'the job id'),
  async execute({ args: [jobId], admin, print }) {
    const result = await callAdmin(await admin(), 'retry_job', { job_id: jobId });
    print(
      result,
      () =>
        `Retrying job '${result.job.id}' (${result.job.task}) as attempt ${result.job.attempt + 1}. Its result: sundial jobs result ${result.job.id} --wait`,
    );
    return undefined;
  },
});

const cancelJobCommand = adminCommand({
  name: 'cancel',
  summary: 'cancel a job, or stop it while it runs',
  description: `Cancels a job (admin API cancel_job). A queued or retrying job never runs. A running job is asked
to stop: within 5 s its handler's signal is aborted, and the job ends cancelled once the handler settled
(no later attempt runs it). A job that has ended fails with job_not_cancellable (exit 1).`,
  examples: ['sundial jobs cancel report-2026-03'],
  declare: (command) => command.argument('<job-id>', 'the job id'),
  async execute({ args: [jobId], admin, print }) {
    const result = await callAdmin(await admin(), 'cancel_job', { job_id: jobId });
    print(result, () =>
      result.job.status === 'running'
        ? `Asked job '${result.job.id}' (${result.job.task}) to stop: it ends cancelled once its handler settled. Its result: sundial jobs result ${result.job.id} --wait`
        : `Cancelled job '${result.job.id}' (${result.job.task}).`,
    );
    return undefined;
  },
});

export const jobsCommand = commandGroup({
  name: 'jobs',
  summary: 'add jobs, read them and their results, cancel them',
  description: `Jobs are single runs of a task: from a schedule's fire time, from 'schedules run', or added directly.
Finished jobs keep their result for the task's resultTtlSeconds.`,
  subcommands: [
    addJobCommand,
    runJobCommand,
    getJobCommand,
    listJobsCommand,
    jobResultCommand,
    cancelJobCommand,
    countJobsCommand,
    retryJobCommand,
  ],
});
