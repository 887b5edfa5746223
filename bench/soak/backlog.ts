import type { AdminHandler } from '../../lib/runtime/handlers/admin';
import { sleep } from '../support/parallel';
import type { SoakSchedule } from './plan';

/**
 * How the backlog task (two slots, handlers of 300–500 ms: at most ~4 runs a second, fewer with the
 * wake-up, receive and claim between runs) is fed: every `everySeconds` its `schedules` fire together
 * and `add_jobs` adds `jobsPerFeed` more at the same instant, about 4 jobs a second in bursts. Its line
 * never empties while the window lasts, and between two bursts no job joins it, so a lost wake-up is
 * made up by the tick's fallback or not at all (a redelivery comes after the 10 s visibility timeout).
 */
export const BACKLOG_FEED = { task: 'backlog', schedules: 4, everySeconds: 5, jobsPerFeed: 16 } as const;

const ADDED_PREFIX = 'backlog-add-';

/** Whether `jobId` is one that the backlog feed added with `add_jobs`. */
export function isAddedBacklogJob(jobId: string): boolean {
  return jobId.startsWith(ADDED_PREFIX);
}

/** The backlog task's schedules: all fire at the same instants, from `startAt` to `endAt`. */
export function backlogSchedules(startAt: number, endAt: number): SoakSchedule[] {
  return Array.from({ length: BACKLOG_FEED.schedules }, (_, n) => ({
    id: `backlog-${n}`,
    task: BACKLOG_FEED.task,
    intervalSeconds: BACKLOG_FEED.everySeconds,
    startAt,
    endAt,
    coalesce: 'all',
    misfireGraceSeconds: 3_600,
    payloadBytes: 100,
    churn: false,
  }));
}

/**
 * Adds `jobsPerFeed` jobs of the backlog task at each of the schedules' fire times in [startAt, endAt]
 * (ids `backlog-add-<n>`: a chosen id has no `@`; due at once, an hour of misfire grace), retrying the items a
 * throttling burst failed, as a user would. Resolves with the ids of every job added: each must run once.
 */
export async function runBacklogFeed(input: {
  admin: AdminHandler;
  startAt: number;
  endAt: number;
  log: (line: string) => void;
}): Promise<Set<string>> {
  const added = new Set<string>();
  let n = 0;
  for (let at = input.startAt; at <= input.endAt; at += BACKLOG_FEED.everySeconds * 1000) {
    await sleep(Math.max(0, at - Date.now()));
    const ids = Array.from({ length: BACKLOG_FEED.jobsPerFeed }, () => `${ADDED_PREFIX}${n++}`);
    for (const id of await addUntilAnswered(input.admin, ids, input.log)) added.add(id);
  }
  return added;
}

async function addUntilAnswered(
  admin: AdminHandler,
  ids: readonly string[],
  log: (line: string) => void,
): Promise<string[]> {
  let pending = [...ids];
  for (let tries = 1; pending.length > 0; tries++) {
    const answer = await admin({
      action: 'add_jobs',
      jobs: pending.map((id) => ({
        task: BACKLOG_FEED.task,
        job_id: id,
        payload: { n: Number(id.slice(ADDED_PREFIX.length)), rev: 0, pad: '' },
        misfire_grace_seconds: 3_600,
        conflict_policy: 'do_nothing',
      })),
    });
    const results = answer.ok ? (answer.result as { results: { ok: boolean }[] }).results : [];
    pending = pending.filter((_, index) => !results[index]?.ok);
    if (pending.length === 0) break;
    if (tries >= 40) throw new Error(`add_jobs of the backlog task: ${pending.length} job(s) never added`);
    if (tries === 1) log(`backlog: add_jobs failed for ${pending.length} job(s); retrying`);
    await sleep(250);
  }
  return [...ids];
}
