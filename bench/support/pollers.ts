import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { pollOnce } from '../../lib/adapters/sqs/event-source';
import { ReceiveGate } from '../../lib/adapters/sqs/receive-gate';
import { decodeJobMessage } from '../../lib/core/model/job-message';
import type { WorkerInvocationContext } from '../../lib/runtime/handlers/worker';
import { sleep } from './parallel';

/** What the pollers handed to the worker: invocations (non-empty batches), messages and busy time. */
export interface PollerStats {
  invocations: number;
  messages: number;
  /** Sum of the invocations' durations: what Lambda would bill. */
  busyMs: number;
  /**
   * Time the worker waits idle for run times (it waits out up to 1 s before a job's run time; the
   * messages of a batch wait side by side): summed over messages, and over invocations (each batch's
   * longest wait, what Lambda bills).
   */
  waitMs: { perMessage: number; perInvocation: number };
  pollErrors: number;
}

/** How long the worker will wait for each message's run time, from the moment it receives the batch. */
function runTimeWaits(event: SQSEvent, now: number): number[] {
  return event.Records.map((record) => {
    const decoded = decodeJobMessage(record.body);
    const early = decoded.ok ? decoded.message.job.runAt - now : 0;
    return early > 0 && early <= 1_000 ? early : 0;
  });
}

export interface Pollers {
  stats: PollerStats;
  stop(): Promise<void>;
}

/** The bench queues' visibility timeout, which a worker invocation must end within (as the construct has it). */
const BENCH_WORKER_TIMEOUT_SECONDS = 30;

/**
 * Emulates Lambda's SQS event source mapping: `count` concurrent pollers, each receiving a batch of up
 * to 10 (long polling for 1 s; as many at once as the `ReceiveGate` lets in), invoking the worker with a Lambda context that ends after
 * `workerTimeoutSeconds` (at most the queue's visibility timeout, as deployed), then deleting what it
 * did not report as failed.
 */
export function startPollers(options: {
  client: SQSClient;
  queueUrl: string;
  queueArn: string;
  count: number;
  handler: (event: SQSEvent, context: WorkerInvocationContext) => Promise<SQSBatchResponse>;
  workerTimeoutSeconds?: number;
}): Pollers {
  const timeoutMs = (options.workerTimeoutSeconds ?? BENCH_WORKER_TIMEOUT_SECONDS) * 1000;
  const stats: PollerStats = {
    invocations: 0,
    messages: 0,
    busyMs: 0,
    waitMs: { perMessage: 0, perInvocation: 0 },
    pollErrors: 0,
  };
  let stopped = false;
  const gate = new ReceiveGate(options.count, 10);
  const invoke = async (event: SQSEvent) => {
    const waits = runTimeWaits(event, Date.now());
    stats.waitMs.perMessage += waits.reduce((sum, wait) => sum + wait, 0);
    stats.waitMs.perInvocation += Math.max(0, ...waits);
    const started = performance.now();
    const deadline = Date.now() + timeoutMs;
    try {
      return await options.handler(event, { getRemainingTimeInMillis: () => deadline - Date.now() });
    } finally {
      stats.invocations += 1;
      stats.messages += event.Records.length;
      stats.busyMs += performance.now() - started;
    }
  };
  const loop = async () => {
    while (!stopped) {
      try {
        await pollOnce(
          {
            client: options.client,
            queueUrl: options.queueUrl,
            queueArn: options.queueArn,
            waitTimeSeconds: 1,
            gate,
          },
          invoke,
        );
      } catch {
        stats.pollErrors += 1;
        await sleep(100);
      }
    }
  };
  const loops = Array.from({ length: options.count }, loop);
  return {
    stats,
    async stop() {
      stopped = true;
      gate.open();
      await Promise.all(loops);
    },
  };
}

export type DrainEnd = 'done' | 'stalled' | 'capped';

/**
 * Waits for `done()` (checked every 200 ms) while work goes on: ends `done` once it holds, `stalled` once
 * `progress()` (a count that only grows) has not moved for `stallMs`, `capped` after `maxMs`. A line
 * that drains slowly but steadily is not a fault; one where nothing moves is.
 */
export async function waitWhileProgressing(
  done: () => boolean | Promise<boolean>,
  progress: () => number,
  limits: { stallMs: number; maxMs: number },
): Promise<DrainEnd> {
  const started = Date.now();
  let seen = progress();
  let movedAt = started;
  for (;;) {
    if (await done()) return 'done';
    const now = Date.now();
    if (progress() !== seen) {
      seen = progress();
      movedAt = now;
    }
    if (now - movedAt >= limits.stallMs) return 'stalled';
    if (now - started >= limits.maxMs) return 'capped';
    await sleep(200);
  }
}

/** Resolves once `done()` holds (checked every 200 ms) or after `maxMs`; true when `done()` held. */
export async function waitFor(done: () => boolean | Promise<boolean>, maxMs: number): Promise<boolean> {
  const until = Date.now() + maxMs;
  for (;;) {
    if (await done()) return true;
    if (Date.now() >= until) return false;
    await sleep(200);
  }
}
