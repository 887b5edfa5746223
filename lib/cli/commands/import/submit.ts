import type { AdminResults } from '../../../core/admin-contract';
import { mapWithConcurrency } from '../../../core/concurrency';
import { type AdminErrorBody, AdminUnavailableError } from '../../admin/answer';
import { type AdminClient, requestAdmin } from '../../admin/client';

/** `add_jobs` takes at most this many jobs per call (docs/admin-api.md). */
export const JOBS_PER_CALL = 1_000;

/** What happened to one item of an import file. */
export interface ItemOutcome {
  kind: 'schedule' | 'job';
  /** Position in its list, from 0. */
  index: number;
  /** The id given in the file, or the one the admin API generated; null when unknown. */
  id: string | null;
  ok: boolean;
  /** `added`, `replaced` or `kept` when ok. */
  status?: string;
  error?: AdminErrorBody;
}

export interface SubmitOptions {
  client: AdminClient;
  /** Schedules sent at once (each is one add_schedule call). */
  concurrency: number;
  /** Applied to items without their own `conflict_policy`. */
  conflictPolicy?: string | undefined;
  /** Called after each schedule and each chunk of jobs, with how many items it settled. */
  onProgress(settled: number): void;
}

/** Adds the schedules one by one (at most `concurrency` calls at a time), in file order in the result. */
export async function submitSchedules(
  items: readonly unknown[],
  options: SubmitOptions,
): Promise<ItemOutcome[]> {
  return mapWithConcurrency(items, options.concurrency, async (item, index) => {
    const outcome = await submitSchedule(item, index, options);
    options.onProgress(1);
    return outcome;
  });
}

async function submitSchedule(item: unknown, index: number, options: SubmitOptions): Promise<ItemOutcome> {
  const given = idOf(item, 'id');
  if (!isObject(item)) return notAnObject('schedule', index);
  try {
    const answer = await requestAdmin(
      options.client,
      'add_schedule',
      withConflictPolicy(item, options.conflictPolicy),
    );
    if (!answer.ok) return { kind: 'schedule', index, id: given, ok: false, error: answer.error };
    const { schedule, status } = answer.result;
    return { kind: 'schedule', index, id: schedule.id, ok: true, status };
  } catch (error) {
    return { kind: 'schedule', index, id: given, ok: false, error: unreachable(error) };
  }
}

/** Adds the jobs with add_jobs, `JOBS_PER_CALL` at a time; each item succeeds or fails on its own. */
export async function submitJobs(items: readonly unknown[], options: SubmitOptions): Promise<ItemOutcome[]> {
  const outcomes: ItemOutcome[] = [];
  for (let start = 0; start < items.length; start += JOBS_PER_CALL) {
    const chunk = items.slice(start, start + JOBS_PER_CALL);
    outcomes.push(...(await submitJobChunk(chunk, start, options)));
    options.onProgress(chunk.length);
  }
  return outcomes;
}

async function submitJobChunk(
  chunk: readonly unknown[],
  offset: number,
  options: SubmitOptions,
): Promise<ItemOutcome[]> {
  const jobs = chunk.map((item) =>
    isObject(item) ? withConflictPolicy(item, options.conflictPolicy) : item,
  );
  let results: AdminResults['add_jobs']['results'];
  try {
    const answer = await requestAdmin(options.client, 'add_jobs', { jobs });
    if (!answer.ok) return chunk.map((item, index) => jobFailure(item, offset + index, answer.error));
    results = answer.result.results;
  } catch (error) {
    return chunk.map((item, index) => jobFailure(item, offset + index, unreachable(error)));
  }
  return chunk.map((item, index) => {
    const answer = results[index];
    if (!answer?.ok) {
      return jobFailure(
        item,
        offset + index,
        answer?.error ?? { code: 'internal_error', message: 'no answer for this item' },
      );
    }
    return {
      kind: 'job',
      index: offset + index,
      id: answer.result.job.id,
      ok: true,
      status: answer.result.status,
    };
  });
}

function jobFailure(item: unknown, index: number, error: AdminErrorBody): ItemOutcome {
  return { kind: 'job', index, id: idOf(item, 'job_id'), ok: false, error: relativeToItem(error, index) };
}

/** add_jobs names fields `jobs[3].payload`; in the report the item is already named, so `payload` is enough. */
function relativeToItem(error: AdminErrorBody, index: number): AdminErrorBody {
  const prefix = new RegExp(`jobs\\[${index % JOBS_PER_CALL}\\]\\.?`, 'g');
  return { ...error, message: error.message.replace(prefix, '') };
}

function withConflictPolicy(
  item: Record<string, unknown>,
  policy: string | undefined,
): Record<string, unknown> {
  return policy === undefined || 'conflict_policy' in item ? item : { ...item, conflict_policy: policy };
}

function notAnObject(kind: 'schedule' | 'job', index: number): ItemOutcome {
  const message = `must be an object with the fields of ${kind === 'schedule' ? 'add_schedule' : 'add_job'}`;
  return { kind, index, id: null, ok: false, error: { code: 'invalid_input', message } };
}

function unreachable(error: unknown): AdminErrorBody {
  if (error instanceof AdminUnavailableError) return { code: 'unreachable', message: error.message };
  return { code: 'internal_error', message: error instanceof Error ? error.message : String(error) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function idOf(item: unknown, field: string): string | null {
  return isObject(item) && typeof item[field] === 'string' ? (item[field] as string) : null;
}
