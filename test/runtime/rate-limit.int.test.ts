import { describe, expect, it } from 'vitest';
import type { JobMessage } from '../../lib/core/ports/job-queue';
import { pollWithTwoWorkers, useLocalServices } from './real-runtime';
import { jobRequest } from './support';

const local = useLocalServices();

const JOBS = 40;
const MAX = 5;
const PER_MS = 1_000;

function directJob(id: string, runAt: number): JobMessage {
  return { job: jobRequest(id, { task: 'rated', runAt }), attempt: 1, delaySeconds: 0 };
}

/** The most handler starts inside any window of `windowMs` (a window opens at each start). */
function maxStartsInAnyWindow(starts: number[], windowMs: number): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let most = 0;
  for (const [index, start] of sorted.entries()) {
    most = Math.max(most, sorted.filter((other, at) => at >= index && other < start + windowMs).length);
  }
  return most;
}

describe('rate limits on DynamoDB Local and the SQS emulator', () => {
  it(
    `starts a backlog of ${JOBS} jobs at most ${MAX} per second, measured in the handlers, each once`,
    async () => {
      // Prepare: a task limited to 5 starts per second (no maxRunningJobs), two workers, no tick:
      // only the wake-ups for each next start move the line
      const sqs = local.sqs();
      const runtime = await local.runtime();
      const starts = new Map<string, number[]>();
      const tasks = {
        rated: {
          rateLimit: { max: MAX, perSeconds: PER_MS / 1000 },
          handler: async (_payload: unknown, { jobId }: { jobId: string }) => {
            starts.set(jobId, [...(starts.get(jobId) ?? []), Date.now()]);
            await new Promise((resolve) => setTimeout(resolve, 50));
          },
        },
      };
      const now = Date.now();
      const ids = Array.from({ length: JOBS }, (_, index) => `job-${String(index).padStart(2, '0')}`);
      for (let from = 0; from < JOBS; from += 10) {
        await runtime.deps.queue.send(
          ids.slice(from, from + 10).map((id, index) => directJob(id, now + from + index)),
        );
      }

      // Act
      const left = await pollWithTwoWorkers(
        sqs,
        runtime,
        tasks,
        () => starts.size >= JOBS,
        20 * JOBS * (PER_MS / MAX),
      );

      // Assess: every job started once, never more than 5 starts (handlers) or claims (store) in any 1 s,
      // nothing left behind
      const all = [...starts.values()].flat();
      const spanMs = Math.max(...all) - Math.min(...all);
      console.info(
        `${JOBS} jobs at ${MAX} per ${PER_MS} ms: ${((JOBS - 1) / (spanMs / 1000)).toFixed(2)} starts/s, at most ${maxStartsInAnyWindow(all, PER_MS)} in any ${PER_MS} ms`,
      );
      const claims: number[] = [];
      for (const id of ids) {
        const job = await runtime.deps.jobStore.getJob(id, Date.now());
        if (job?.startedAt) claims.push(job.startedAt);
      }
      expect([...starts.keys()].sort()).toEqual(ids);
      expect([...starts.values()].every((jobStarts) => jobStarts.length === 1)).toBe(true);
      expect(maxStartsInAnyWindow(all, PER_MS)).toBeLessThanOrEqual(MAX);
      expect(claims).toHaveLength(JOBS);
      expect(maxStartsInAnyWindow(claims, PER_MS)).toBeLessThanOrEqual(MAX);
      expect(left).toEqual([]);
      expect(await runtime.deps.jobStore.waitingCount('rated')).toBe(0);
    },
    30 * JOBS * (PER_MS / MAX),
  );
});
