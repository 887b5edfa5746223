import { countJobsParams, type WireJobCounts } from '../../../core/admin-contract/job-recovery';
import type { EpochMs } from '../../../core/clock';
import { LIMITS } from '../../../core/limits';
import type { Job, JobStatus } from '../../../core/model/job';
import type { ActionContext, ActionHandler } from '../context';
import { InputCheck } from '../validation/input-check';

const PAGE = 500;

/**
 * `count_jobs`: per task (one, or every registered task), how many of its jobs are in each status,
 * counted over its newest `max_jobs` jobs (by due time: a fire's fire time, another job's run time, from
 * `since` on) whose results are still kept.
 * It reads each counted job (eventually consistent), so its cost grows with `max_jobs`, never beyond.
 */
export const countJobs: ActionHandler<'count_jobs'> = async (raw, context) => {
  const check = new InputCheck(context.deps.tasks);
  const parsed = check.params(countJobsParams, raw);
  const task = raw.task === undefined ? undefined : check.task(raw.task);
  const { params } = check.valid({ params: parsed });
  const tasks = task ? [task.id] : context.deps.tasks.ids();
  const counts: WireJobCounts[] = [];
  for (const id of tasks) counts.push(await countTask(context, id, params.max_jobs, params.since));
  return { tasks: counts };
};

/**
 * When a job was due: a schedule fire's fire time, any other job's run time. A task's listing is in this
 * order, except that a fire listed from the `jobs-by-task` index sits at its first run time, up to
 * `max_jitter_seconds` later.
 */
function dueAt(job: Job): EpochMs {
  return job.fireTime ?? job.runAt;
}

async function countTask(
  context: ActionContext,
  task: string,
  maxJobs: number,
  since: EpochMs | undefined,
): Promise<WireJobCounts> {
  const counts: Partial<Record<JobStatus, number>> = {};
  let counted = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await context.deps.jobStore.listJobs(
      { task },
      { limit: Math.min(PAGE, maxJobs - counted + 1), ...(cursor !== undefined && { cursor }) },
      context.now,
    );
    for (const job of page.items) {
      if (since !== undefined && dueAt(job) < since) {
        // The listing's order is by due time, give or take a fire's jitter (see `dueAt`).
        if (dueAt(job) < since - LIMITS.maxJitterSeconds * 1000)
          return { task, counts, counted, complete: true };
        continue;
      }
      if (counted === maxJobs) return { task, counts, counted, complete: false };
      counts[job.status] = (counts[job.status] ?? 0) + 1;
      counted += 1;
    }
    if (page.cursor === undefined) return { task, counts, counted, complete: true };
    cursor = page.cursor;
  }
}
