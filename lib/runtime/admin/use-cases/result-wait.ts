import { isFinalStatus, type Job } from '../../../core/model/job';
import type { ActionContext } from '../context';

/**
 * The pauses between reads while a call waits for a result: 50 ms, doubling up to 1 s. There is no push
 * channel from the worker to the admin Lambda, so a wait is a series of strongly consistent GetItem calls
 * (1 RRU each for items up to 4 KB): about 25 for a 20 s wait, 35 for the longest (30 s).
 */
export const RESULT_WAIT_BACKOFF = { firstDelayMs: 50, maxDelayMs: 1_000 } as const;

/** True once the job has ended and carries its result. */
export function hasFinalResult(job: Job): boolean {
  return isFinalStatus(job.status) && job.result !== null;
}

/**
 * Reads `first` (the job as the caller found it) again and again, backing off, until it has its final
 * result or `waitMs` of pauses have passed (by the clock or by the pauses themselves, whichever comes
 * first, so a clock that stands still cannot make it wait forever). Returns the job as last read;
 * undefined when it disappeared (its result expired). `unstored`: `first` is a fire sent to the queue
 * that has no record yet; it stays as it is until a worker writes one.
 */
export async function waitForResult(
  context: ActionContext,
  first: Job,
  waitMs: number,
  unstored = false,
): Promise<Job | undefined> {
  const { jobStore, clock } = context.deps;
  const pause = context.deps.sleep;
  const startedAt = clock.now();
  let job: Job | undefined = first;
  let paused = 0;
  let delay: number = RESULT_WAIT_BACKOFF.firstDelayMs;
  while (job && !hasFinalResult(job)) {
    const remaining = Math.min(waitMs - paused, startedAt + waitMs - clock.now());
    if (remaining <= 0) break;
    const step = Math.min(delay, remaining);
    await pause(step);
    paused += step;
    delay = Math.min(delay * 2, RESULT_WAIT_BACKOFF.maxDelayMs);
    job = (await jobStore.getJob(first.id, clock.now())) ?? (unstored ? first : undefined);
  }
  return job;
}
