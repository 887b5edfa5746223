import type { SQSClient } from '@aws-sdk/client-sqs';
import { pollOnce } from '../adapters/sqs/event-source';
import { ReceiveGate } from '../adapters/sqs/receive-gate';
import { sleep } from '../core/clock';
import type { SandboxPool } from './sandbox-pool';

export interface WorkerPollersOptions {
  client: SQSClient;
  queueUrl: string;
  queueArn: string;
  /** The worker's sandboxes (shared by every queue's pollers, as both event sources invoke one function). */
  sandboxes: SandboxPool;
  concurrency: number;
  batchSize: number;
  /** The worker Lambda's timeout (ms): each invocation's end; it follows the tasks as loaded. */
  timeoutMs: () => number;
  onError: (error: unknown) => void;
}

/**
 * What Lambda's SQS event source mapping does in AWS, on this machine: `concurrency` loops that
 * long-poll the queue (as many at once as the `ReceiveGate` lets in) and hand each batch, as a real `SQSEvent`, to an invocation of the worker in a
 * sandbox of its own. An invocation whose handler outlived its deadline holds its sandbox until the
 * handler settles or the invocation ends, as in Lambda; its loop goes on polling meanwhile, as Lambda
 * runs other invocations beside a held one, so no number of such handlers stops the other jobs.
 */
export function startWorkerPollers(options: WorkerPollersOptions): { stop(): Promise<void> } {
  let running = true;
  const held = new Set<Promise<unknown>>();
  const gate = new ReceiveGate(options.concurrency, options.batchSize);
  const poll = (onHeld: () => void) =>
    pollOnce(
      {
        client: options.client,
        queueUrl: options.queueUrl,
        queueArn: options.queueArn,
        batchSize: options.batchSize,
        waitTimeSeconds: 1,
        gate,
      },
      async (event) => {
        // Lambda fails the batch when its sandbox cannot start (a task module that does not load): so here
        const sandbox = await options.sandboxes.acquire().catch((error: unknown) => {
          options.onError(error);
          throw error;
        });
        try {
          return await sandbox.invoke(event, options.timeoutMs(), onHeld);
        } finally {
          options.sandboxes.release(sandbox);
        }
      },
    );
  const loop = async () => {
    while (running) {
      try {
        let release: () => void = () => {};
        const outlived = new Promise<'held'>((resolve) => {
          release = () => resolve('held');
        });
        const polled = poll(() => release());
        if ((await Promise.race([polled, outlived])) === 'held') {
          const detached = polled.catch((error: unknown) => running && options.onError(error));
          held.add(detached);
          void detached.finally(() => held.delete(detached));
        }
      } catch (error) {
        if (!running) return;
        options.onError(error);
        await sleep(1_000);
      }
    }
  };
  const loops = Array.from({ length: options.concurrency }, loop);
  return {
    /** Stops polling; resolves once every invocation of these pollers has ended (see `SandboxPool.stop`). */
    async stop() {
      running = false;
      gate.open();
      await Promise.all([...loops, ...held]);
    },
  };
}
