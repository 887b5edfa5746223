import type { SQSClient } from '@aws-sdk/client-sqs';
import { pollOnce } from '../adapters/sqs/event-source';
import { sleep } from '../core/clock';
import type { WorkerHandler } from '../runtime/handlers/worker';
import { localLambdaContext } from './lambda-context';

export interface WorkerPollersOptions {
  client: SQSClient;
  queueUrl: string;
  queueArn: string;
  /** The current worker handler (it changes when tasks are reloaded). */
  worker: () => WorkerHandler;
  concurrency: number;
  batchSize: number;
  /** The worker Lambda's timeout: bounds each batch like the real one. */
  timeoutMs: number;
  onError: (error: unknown) => void;
}

/**
 * What Lambda's SQS event source mapping does in AWS, on this machine: `concurrency` loops that
 * long-poll the jobs queue and hand each batch to the worker handler as a real `SQSEvent`.
 */
export function startWorkerPollers(options: WorkerPollersOptions): { stop(): Promise<void> } {
  let running = true;
  const loop = async () => {
    while (running) {
      try {
        await pollOnce(
          {
            client: options.client,
            queueUrl: options.queueUrl,
            queueArn: options.queueArn,
            batchSize: options.batchSize,
            waitTimeSeconds: 1,
          },
          (event) => options.worker()(event, localLambdaContext('sundial-worker', options.timeoutMs)),
        );
      } catch (error) {
        if (!running) return;
        options.onError(error);
        await sleep(1_000);
      }
    }
  };
  const loops = Array.from({ length: options.concurrency }, loop);
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}
