import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import {
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { queueClient } from '../../lib/adapters/sqs/client';
import { createQueueWithDeadLetterQueue } from '../../lib/local/local-resources';

const LOCAL = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };

/** SQS requests by API action; `emptyReceives` are receives that returned nothing (polling overhead). */
export interface SqsRequestCounts {
  [action: string]: number;
}

/** The SQS emulator for a benchmark run, with a client that counts every request it makes. */
export interface BenchSqs {
  endpoint: string;
  client: SQSClient;
  requests: SqsRequestCounts;
  resetCounts(): void;
  stop(): Promise<void>;
}

/**
 * Starts the SQS emulator in a process of its own, as DynamoDB Local runs in its own (a JVM) and Redis
 * for the BullMQ comparison in its own: in AWS the queue's work is not done on the tick's or the
 * worker's CPU, and an emulator in the benchmark's event loop would take that CPU from them (and
 * delay their callbacks with its 20 ms delay timer).
 */
export async function startBenchSqs(): Promise<BenchSqs> {
  const server = await startEmulatorProcess();
  const { endpoint } = server;
  const client = queueClient({ endpoint, ...LOCAL });
  const requests: SqsRequestCounts = {};
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const output = await next(args);
      const action = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      const messages = (output.output as { Messages?: Message[] }).Messages;
      const key = action === 'ReceiveMessage' && !messages?.length ? 'EmptyReceive' : action;
      requests[key] = (requests[key] ?? 0) + 1;
      return output;
    },
    { step: 'initialize', name: 'benchRequestCounter' },
  );
  return {
    endpoint,
    client,
    requests,
    resetCounts() {
      for (const key of Object.keys(requests)) delete requests[key];
    },
    async stop() {
      client.destroy();
      await server.stop();
    },
  };
}

async function startEmulatorProcess(): Promise<{ endpoint: string; stop(): Promise<void> }> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./sqs-process.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [started] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`the SQS emulator process exited with ${code} before it listened`);
    }),
  ])) as [{ endpoint: string }];
  return {
    endpoint: started.endpoint,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.send('stop');
      await exited;
    },
  };
}

export interface BenchQueue {
  queueUrl: string;
  queueArn: string;
  dlqUrl: string;
}

let queues = 0;

/** A jobs queue with its own DLQ, like the stack's (redrive after `maxReceiveCount`). */
export async function createBenchQueue(
  client: SQSClient,
  options: { visibilityTimeoutSeconds: number; maxReceiveCount: number },
): Promise<BenchQueue> {
  queues += 1;
  const name = `jobs-${Date.now().toString(36)}-${queues}`;
  const queue = await createQueueWithDeadLetterQueue(client, { name, ...options });
  return { queueUrl: queue.queueUrl, queueArn: queue.queueArn, dlqUrl: queue.deadLetterQueueUrl };
}

/** Messages in the queue: visible, in flight and delayed. */
export async function queueDepth(
  client: SQSClient,
  queueUrl: string,
): Promise<{ visible: number; inFlight: number; delayed: number; total: number }> {
  const output = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  const attributes: Record<string, string | undefined> = output.Attributes ?? {};
  const value = (name: string) => Number(attributes[name] ?? 0);
  const visible = value('ApproximateNumberOfMessages');
  const inFlight = value('ApproximateNumberOfMessagesNotVisible');
  const delayed = value('ApproximateNumberOfMessagesDelayed');
  return { visible, inFlight, delayed, total: visible + inFlight + delayed };
}

/** Peeks at up to 10 messages without consuming them for long (for reporting stuck messages). */
export async function peekMessages(client: SQSClient, queueUrl: string): Promise<string[]> {
  const output = await client.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
  );
  return (output.Messages ?? []).map((message) => (message.Body ?? '').slice(0, 200));
}
