import type { WireJobCounts } from '../../core/admin-contract/job-recovery';
import type { Clock } from '../../core/clock';
import { compactDuration, wholeDuration } from '../../core/format/durations';
import { JOB_STATUSES } from '../../core/model/job';
import type { WireJob, WireJobResult, WireTask, WireWait } from '../admin/wire';
import { localWithRelative } from './instants';
import { overrideAndMetadataLines } from './overrides-and-metadata';
import { renderFields, renderTable } from './table';

const ERROR_COLUMN_WIDTH = 60;

/** Jobs newest first as the admin API lists them; times in `zone`. */
export function renderJobTable(jobs: readonly WireJob[], zone: string, clock: Clock): string {
  if (jobs.length === 0) return 'No jobs.';
  const rows = jobs.map((job) => [
    job.id,
    job.task,
    job.status,
    localWithRelative(job.fire_time ?? job.run_at, zone, clock),
    job.result?.duration_seconds == null ? '-' : compactDuration(job.result.duration_seconds),
    String(job.attempt),
    errorSummary(job.result),
  ]);
  return renderTable(['ID', 'TASK', 'STATUS', 'FIRE / RUN AT', 'DURATION', 'ATTEMPT', 'ERROR'], rows);
}

function errorSummary(result: WireJobResult | null): string {
  if (!result?.error) return '';
  const text = `${result.error.type}: ${result.error.message}`.replace(/\s+/g, ' ');
  return text.length > ERROR_COLUMN_WIDTH ? `${text.slice(0, ERROR_COLUMN_WIDTH - 1)}…` : text;
}

/** Every field of one job, its result included. */
export function renderJobDetails(job: WireJob, zone: string, clock: Clock): string {
  const time = (iso: string | null) => localWithRelative(iso, zone, clock);
  const fields: [string, string][] = [
    ['id', job.id],
    ['task', job.task],
    ['status', job.status],
    ...fieldIfAny('waiting on', job.waiting_on?.map((wait) => describeWait(wait, time)).join('; ')),
    ['origin', job.schedule_id === null ? job.origin : `${job.origin} (schedule ${job.schedule_id})`],
    ['payload', JSON.stringify(job.payload)],
    ['fire time', time(job.fire_time)],
    ['run at', time(job.run_at)],
    ['start deadline', time(job.start_deadline)],
    ...overrideAndMetadataLines(job),
    ['attempt', String(job.attempt)],
    ['created', time(job.created_at)],
    ['started', time(job.started_at)],
    ['finished', time(job.finished_at)],
    ['expires', time(job.expires_at)],
    ...fieldIfAny('cancel asked', job.cancel_requested_at && time(job.cancel_requested_at)),
  ];
  const details = renderFields(fields);
  const result = job.result === null ? '' : `\n\nResult:\n${renderJobResult(job.result, zone, clock)}`;
  const history = (job.history ?? []).map(
    (earlier) => `\n\nBefore a retry:\n${renderJobResult(earlier, zone, clock)}`,
  );
  return `${details}${result}${history.join('')}`;
}

/** A row for a field the job may not have: none when it has no value. */
function fieldIfAny(label: string, value: string | undefined): [string, string][] {
  return value === undefined ? [] : [[label, value]];
}

function describeWait(wait: WireWait, time: (iso: string | null) => string): string {
  switch (wait.constraint) {
    case 'paused':
      return 'its task is paused';
    case 'max_running_jobs':
      return `maxRunningJobs (${wait.running} / ${wait.limit} running)`;
    case 'rate_limit':
      return `rateLimit (next start ${time(wait.next_start_at)})`;
  }
}

/** `count_jobs`: one row per task, a column per status that occurs. */
export function renderJobCounts(tasks: readonly WireJobCounts[]): string {
  if (tasks.length === 0) return 'No tasks.';
  const statuses = JOB_STATUSES.filter((status) => tasks.some((task) => task.counts[status] !== undefined));
  const rows = tasks.map((task) => [
    task.task,
    ...statuses.map((status) => String(task.counts[status] ?? 0)),
    task.complete ? String(task.counted) : `${task.counted} newest (more not counted)`,
  ]);
  return renderTable(['TASK', ...statuses.map((status) => status.toUpperCase()), 'COUNTED'], rows);
}

/** A finished job's outcome: its return value, or its error with the stack. */
export function renderJobResult(result: WireJobResult, zone: string, clock: Clock): string {
  const fields: [string, string][] = [
    ['outcome', result.outcome],
    ['started', localWithRelative(result.started_at, zone, clock)],
    ['finished', localWithRelative(result.finished_at, zone, clock)],
    ['duration', result.duration_seconds === null ? '-' : compactDuration(result.duration_seconds)],
    ['attempt', String(result.attempt)],
  ];
  if (result.return_value !== undefined) {
    fields.push(['return value', JSON.stringify(result.return_value, null, 2)]);
  }
  if (result.error) {
    fields.push(['error', `${result.error.type}: ${result.error.message}`]);
    if (result.error.stack) fields.push(['stack', result.error.stack]);
  }
  return renderFields(fields);
}

/** Tasks with their running jobs against their limit, their rate limit, their waiting jobs, whether paused, and their options. */
export function renderTaskTable(tasks: readonly WireTask[]): string {
  if (tasks.length === 0) return 'No tasks: add a module to functions/.';
  const rows = tasks.map((task) => [
    task.id,
    `${task.running} / ${task.max_running_jobs ?? '∞'}`,
    task.rate_limit === null
      ? 'none'
      : `${task.rate_limit.max} per ${wholeDuration(task.rate_limit.per_seconds)}`,
    String(task.waiting),
    task.paused ? 'yes' : 'no',
    wholeDuration(task.timeout_seconds),
    task.misfire_grace_seconds === null ? 'none' : `${task.misfire_grace_seconds} s`,
    `${task.retry.max_attempts} × from ${task.retry.backoff_seconds} s`,
    wholeDuration(task.result_ttl_seconds),
    task.events,
    task.has_payload_schema ? 'yes' : 'no',
  ]);
  return renderTable(
    [
      'TASK',
      'RUNNING / LIMIT',
      'RATE LIMIT',
      'WAITING',
      'PAUSED',
      'TIMEOUT',
      'MISFIRE GRACE',
      'ATTEMPTS',
      'RESULTS KEPT',
      'EVENTS',
      'SCHEMA',
    ],
    rows,
  );
}
