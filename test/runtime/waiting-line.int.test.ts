import { describe, expect, it } from 'vitest';
import type { JobMessage } from '../../lib/core/ports/job-queue';
import { pollWithTwoWorkers, useLocalServices } from './real-runtime';
import { jobRequest } from './support';

const local = useLocalServices();

const JOBS = 30;
const RUN_MS = 1_000;

function directJob(id: string, runAt: number): JobMessage {
  return { job: jobRequest(id, { task: 'limited', runAt }), attempt: 1, delaySeconds: 0 };
}

describe('waiting lines on DynamoDB Local and the SQS emulator', () => {
  it(
    `runs ${JOBS} jobs of ${RUN_MS} ms on maxRunningJobs 1 one after the other, each once, woken as the slot comes back`,
    async () => {
      // Prepare: a task limited to 1, two workers polling and no tick: only wake-ups move the line
      const sqs = local.sqs();
      const runtime = await local.runtime();
      const runs: { id: string; start: number; end: number }[] = [];
      let running = 0;
      let maxRunning = 0;
      const tasks = {
        limited: {
          maxRunningJobs: 1,
          handler: async (_payload: unknown, { jobId }: { jobId: string }) => {
            running += 1;
            maxRunning = Math.max(maxRunning, running);
            const start = Date.now();
            await new Promise((resolve) => setTimeout(resolve, RUN_MS));
            running -= 1;
            runs.push({ id: jobId, start, end: Date.now() });
          },
        },
      };
      const now = Date.now();
      const ids = Array.from({ length: JOBS }, (_, index) => `job-${String(index).padStart(2, '0')}`);
      await runtime.deps.queue.send(ids.map((id, index) => directJob(id, now + index)));

      // Act
      const left = await pollWithTwoWorkers(
        sqs,
        runtime,
        tasks,
        () => runs.length >= JOBS,
        3 * JOBS * RUN_MS,
      );

      // Assess: each job once, never two at a time, the line drained in order once everything had joined
      const wall = (runs.at(-1)?.end ?? 0) - (runs[0]?.start ?? 0);
      const slotUse = runs.reduce((sum, run) => sum + (run.end - run.start), 0) / wall;
      console.info(
        `${JOBS} × ${RUN_MS} ms on maxRunningJobs 1: ${(wall / 1000).toFixed(1)} s from first start to last end, slot use ${(slotUse * 100).toFixed(0)} %`,
      );
      expect(runs.map((run) => run.id).sort()).toEqual(ids);
      expect(maxRunning).toBe(1);
      const later = runs.slice(3).map((run) => run.id);
      expect(later).toEqual([...later].sort());
      expect(left).toEqual([]);
      expect(await runtime.deps.jobStore.waitingCount('limited')).toBe(0);
      expect(await runtime.deps.jobStore.runningCounts()).toEqual(new Map([['limited', 0]]));
    },
    5 * JOBS * RUN_MS,
  );
});
