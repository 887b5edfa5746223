import { cursorPosition, encodeCursor, exactRecord, jobListing } from '../../../adapters/page-cursor';
import type { Job } from '../../../core/model/job';
import { matchesMetadata } from '../../../core/model/metadata';
import type { Page, PageRequest } from '../../../core/model/page';
import type { JobFilter } from '../../../core/ports/job-store';
import type { ActionContext } from '../context';
import { dispatchedFireTimes, queuedFireJob } from './dispatched-fires';
import { readWithLiveNote } from './live-notes';

/** Stored jobs are read in pages of this size while looking for the records of dispatched fires. */
const RECORD_PAGE = 500;

/**
 * `list_jobs`: the store's listing; for a schedule's jobs (not narrowed by task), its dispatched fires
 * that have no job record yet come first (newest first), then the stored jobs. Without a status, only
 * the fires that are due (recent first: what ran and runs now, not the next 90 s of a per-second
 * schedule); with `queued`, every fire in the queue. While the page holds dispatched fires, the cursor
 * is one of ours (`{ firesBefore }`); past them, the store's.
 */
export async function listJobsWithDispatchedFires(
  context: ActionContext,
  filter: JobFilter,
  page: PageRequest,
): Promise<Page<Job>> {
  const { jobStore } = context.deps;
  const fromStore = (request: PageRequest) => jobStore.listJobs(filter, request, context.now);
  const firesCursor = page.cursor === undefined ? undefined : decodeFiresCursor(page.cursor, filter);
  const withFires =
    filter.scheduleId !== undefined &&
    (filter.status === undefined || filter.status === 'queued') &&
    filter.task === undefined &&
    (page.cursor === undefined || firesCursor !== undefined);
  if (!withFires || filter.scheduleId === undefined) return fromStore(page);

  const schedule = await readWithLiveNote(context, filter.scheduleId);
  const before = firesCursor ?? Number.POSITIVE_INFINITY;
  const dueOnly = filter.status === undefined;
  const times = schedule
    ? dispatchedFireTimes(schedule, context, dueOnly ? Math.min(before, context.now + 1) : before)
    : [];
  const recorded =
    times.length > 0 ? await recordedJobIds(context, filter.scheduleId, times.at(-1) ?? 0) : new Set();
  const fires = schedule
    ? times
        .map((time) => queuedFireJob(schedule, time, context.now))
        .filter((job) => !recorded.has(job.id) && matchesMetadata(job.metadata, filter.metadata))
    : [];

  const limit = Math.max(1, page.limit);
  if (fires.length >= limit) {
    const shown = fires.slice(0, limit);
    // A metadata filter may leave a store page empty while later pages match: its cursor says so.
    const next = fires.length > limit ? undefined : await fromStore({ limit: 1 });
    const more = next === undefined || next.items.length > 0 || next.cursor !== undefined;
    const last = shown.at(-1)?.fireTime ?? 0;
    return more ? { items: shown, cursor: encodeFiresCursor(last, filter) } : { items: shown };
  }
  const stored = await fromStore({ limit: limit - fires.length });
  return { ...stored, items: [...fires, ...stored.items] };
}

/** The ids of the schedule's job records from fire time `since` on (and run-now jobs among them). */
async function recordedJobIds(
  context: ActionContext,
  scheduleId: string,
  since: number,
): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await context.deps.jobStore.listJobs(
      { scheduleId },
      { limit: RECORD_PAGE, ...(cursor !== undefined && { cursor }) },
      context.now,
    );
    for (const job of page.items) ids.add(job.id);
    const oldest = page.items.at(-1);
    // A schedule's listing runs by fire time (a run-now job by its run time).
    cursor = oldest !== undefined && (oldest.fireTime ?? oldest.runAt) >= since ? page.cursor : undefined;
  } while (cursor !== undefined);
  return ids;
}

/** Bound to the listing as the store's cursors are; its position (`{ firesBefore }`) tells the two apart. */
function encodeFiresCursor(firesBefore: number, filter: JobFilter): string {
  return encodeCursor(jobListing(filter), { firesBefore });
}

/** The fire time a cursor of ours continues before; undefined for any other cursor (the store checks those). */
function decodeFiresCursor(cursor: string, filter: JobFilter): number | undefined {
  const position = cursorPosition(cursor, jobListing(filter), readFiresPosition);
  return position?.firesBefore as number | undefined;
}

const readFiresPosition = exactRecord({ firesBefore: Number.isSafeInteger });
