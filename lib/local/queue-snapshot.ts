import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { LIMITS } from '../core/limits';
import type { SqsEmulator } from './sqs-emulator';

interface SavedMessage {
  body: string;
  /** When the message becomes visible (epoch ms); 0 = at once. */
  visibleAt: number;
}

/**
 * The SQS emulator keeps messages in memory only. With `--data-dir`, the messages still waiting in
 * the jobs queue at shutdown are saved and sent again at the next start, with what remains of their
 * delay, so a stop and start loses no job. (A crash still loses them: the schedules' leases and the
 * store's idempotent claims make the next tick resend only what it still owns.)
 */
export async function saveQueueSnapshot(
  emulator: Pick<SqsEmulator, 'inspectQueue'>,
  queueName: string,
  file: string,
): Promise<number> {
  const queue = await emulator.inspectQueue(queueName);
  if (!queue) return 0;
  const saved: SavedMessage[] = [
    ...queue.messages.ready.map((message) => ({ body: message.body, visibleAt: 0 })),
    ...queue.messages.delayed.map((message) => ({ body: message.body, visibleAt: message.delayUntil ?? 0 })),
    ...queue.messages.inflight.map((entry) => ({ body: entry.message.body, visibleAt: 0 })),
  ];
  await writeFile(file, JSON.stringify(saved));
  return saved.length;
}

/** Sends the saved messages again and removes the snapshot. Returns how many were restored. */
export async function restoreQueueSnapshot(
  client: SQSClient,
  queueUrl: string,
  file: string,
): Promise<number> {
  if (!existsSync(file)) return 0;
  const saved = JSON.parse(await readFile(file, 'utf8')) as SavedMessage[];
  const now = Date.now();
  for (let start = 0; start < saved.length; start += 10) {
    const batch = saved.slice(start, start + 10);
    await client.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map((message, index) => ({
          Id: String(index),
          MessageBody: message.body,
          DelaySeconds: Math.min(
            LIMITS.maxQueueDelaySeconds,
            Math.max(0, Math.ceil((message.visibleAt - now) / 1000)),
          ),
        })),
      }),
    );
  }
  await rm(file);
  return saved.length;
}
