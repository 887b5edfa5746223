import type { MemoryStore } from '../lib/adapters/memory/memory-store';
import { isFinalStatus } from '../lib/core/model/job';
import { scheduleJobId } from '../lib/core/model/job-id';
import { isFinished, type Schedule } from '../lib/core/model/schedule';

/**
 * The schedules a closing note should have removed by now (ADR 0011): finished, not kept, and the job
 * of their last fire has ended (any final status). Each with what its last job is.
 */
export async function finishedNotRemoved(store: MemoryStore): Promise<string[]> {
  const left: string[] = [];
  for (const schedule of await allSchedules(store)) {
    if (!isFinished(schedule) || schedule.keepFinished || schedule.lastFireAt === null) continue;
    const jobId = scheduleJobId(schedule.id, schedule.lastFireAt);
    const job = await store.getJobRecord(jobId);
    if (!job || !isFinalStatus(job.status)) continue;
    const why = job.result?.error?.type;
    left.push(`${schedule.id} (its last job ${jobId} is ${job.status}${why ? `, ${why}` : ''})`);
  }
  return left;
}

async function allSchedules(store: MemoryStore): Promise<Schedule[]> {
  const schedules: Schedule[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listSchedules({}, { limit: 100, cursor });
    schedules.push(...page.items);
    cursor = page.cursor;
  } while (cursor);
  return schedules;
}
