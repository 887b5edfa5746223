import type { JobMessage } from '../../../lib/core/ports/job-queue';
import { createAdminApi } from '../../../lib/runtime/admin';
import { adminDependencies } from '../../../lib/runtime/handlers/admin';
import { defineTask, type TaskOptions } from '../../../lib/runtime/tasks/define-task';
import { staticTaskRegistry } from '../../../lib/runtime/tasks/registry';
import { SECOND, sqsRecord, T0 } from '../support';
import { type HarnessOptions, workerHarness } from './harness';

// biome-ignore lint/suspicious/noExplicitAny: test tasks take whatever payload their test sends.
type AnyTaskOptions = TaskOptions<any, any>;

/**
 * The worker and the admin API on one in-memory store (or the stores of `options`), queue and publisher
 * (lookahead 90 s, no tick running), with `tasks`. Messages are delivered at their run time by `deliverDue`.
 */
export function adminAndWorker(tasks: Record<string, AnyTaskOptions>, options: HarnessOptions = {}) {
  const worker = workerHarness(tasks, {}, options);
  const api = createAdminApi(
    adminDependencies(
      worker.deps,
      staticTaskRegistry(
        Object.fromEntries(Object.entries(tasks).map(([id, task]) => [id, { default: defineTask(task) }])),
      ),
    ),
  );
  const admin = async (request: Record<string, unknown>) => {
    const response = await api(request);
    if (!response.ok) throw new Error(`${String(request.action)}: ${JSON.stringify(response.error)}`);
    return response.result as Record<string, unknown>;
  };
  const deliver = async (message: JobMessage) => {
    if (message.job.runAt > worker.clock.now()) worker.clock.set(message.job.runAt);
    return worker.deliver([sqsRecord(message)]);
  };
  return {
    ...worker,
    api,
    admin,
    deliver,
    /** A worker claims `message` (at the clock's time) and vanishes before it reads the schedule: its lease ends later. */
    async claimAndVanish(message: JobMessage | undefined) {
      if (!message) throw new Error('no message to claim');
      const now = worker.clock.now();
      const claim = await worker.deps.jobStore.claimJob({
        job: message.job,
        attempt: message.attempt,
        owner: 'worker-vanished',
        now,
        leaseUntil: now + 30 * SECOND,
        reclaimCancelledFire: true,
      });
      if (claim.status !== 'claimed') throw new Error(`not claimed: ${claim.status}`);
    },
    /** Takes the queued message of the fire at `T0 + seconds` out of the queue (a worker that gets to it late). */
    takeMessage(seconds: number): JobMessage {
      const index = worker.queue.sent.findIndex((message) => message.job.fireTime === T0 + seconds * SECOND);
      const [message] = worker.queue.sent.splice(index, 1);
      if (!message) throw new Error(`no message for the fire at +${seconds}s`);
      return message;
    },
    /**
     * Delivers, in run-time order, every queued message due by `T0 + seconds` (and those they send), then
     * sets the clock there; each message `deliveries` times in a row (SQS delivers at least once).
     */
    async deliverDue(seconds: number, deliveries = 1) {
      const until = T0 + seconds * SECOND;
      for (;;) {
        const queued = worker.queue.drain();
        const due = queued.filter((message) => message.job.runAt <= until);
        worker.queue.sent.push(...queued.filter((message) => message.job.runAt > until));
        if (due.length === 0) break;
        for (const message of due.sort((a, b) => a.job.runAt - b.job.runAt)) {
          for (let delivery = 0; delivery < deliveries; delivery++) await deliver(message);
        }
      }
      worker.clock.set(Math.max(worker.clock.now(), until));
    },
  };
}
