import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPollers, waitFor } from '../../bench/support/pollers';
import {
  createTestQueue,
  type LocalSqs,
  localSqsClient,
  messagesInQueue,
  startLocalSqs,
} from '../support/sqs';

let sqs: LocalSqs;

beforeAll(async () => {
  sqs = await startLocalSqs();
});

afterAll(async () => {
  await sqs?.stop();
});

async function sendMessages(queueUrl: string, count: number, from = 0): Promise<void> {
  for (let first = from; first < from + count; first += 10) {
    const ids = Array.from({ length: Math.min(10, from + count - first) }, (_, n) => first + n);
    await sqs.client.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: ids.map((id) => ({ Id: `m${id}`, MessageBody: String(id) })),
      }),
    );
  }
}

describe('the bench pollers (the emulated event source)', () => {
  it('invokes every message once, up to `count` invocations at once while they go on receiving, and deletes what succeeded', async () => {
    // Prepare: 60 messages; invocations that take 100 ms each
    const queue = await createTestQueue(sqs.client);
    await sendMessages(queue.queueUrl, 60);
    const seen: string[] = [];
    let running = 0;
    let mostAtOnce = 0;

    // Act
    const pollers = startPollers({
      client: sqs.client,
      queueUrl: queue.queueUrl,
      queueArn: queue.queueArn,
      count: 8,
      handler: async (event) => {
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        for (const record of event.Records) seen.push(record.body);
        await new Promise((resolve) => setTimeout(resolve, 100));
        running -= 1;
        return { batchItemFailures: [] };
      },
    });
    const done = await waitFor(() => seen.length >= 60, 20_000);
    await pollers.stop();

    // Assess: each message once; more invocations at once than receive loops, never more than 8
    expect(done).toBe(true);
    expect([...seen].sort()).toEqual(Array.from({ length: 60 }, (_, n) => String(n)).sort());
    expect(mostAtOnce).toBeGreaterThan(4);
    expect(mostAtOnce).toBeLessThanOrEqual(8);
    expect(running).toBe(0);
    expect(pollers.stats.messages).toBe(60);
    expect(await messagesInQueue(sqs.client, queue.queueUrl)).toBe(0);
  });

  it('makes a few receives per message however many invocations it may run: the emulator wakes every waiting receive', async () => {
    // Prepare: pollers of up to 32 invocations, idle; a client that counts its receives
    const queue = await createTestQueue(sqs.client);
    const client = localSqsClient(sqs.endpoint);
    let receives = 0;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'ReceiveMessageCommand') receives += 1;
        return next(args);
      },
      { step: 'initialize', name: 'receiveCounter' },
    );
    const seen: string[] = [];
    const pollers = startPollers({
      client,
      queueUrl: queue.queueUrl,
      queueArn: queue.queueArn,
      count: 32,
      handler: async (event) => {
        for (const record of event.Records) seen.push(record.body);
        return { batchItemFailures: [] };
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = receives;

    // Act: 20 messages, one every 100 ms
    for (let n = 0; n < 20; n++) {
      await sendMessages(queue.queueUrl, 1, n);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await waitFor(() => seen.length >= 20, 10_000);
    const perMessage = (receives - before) / 20;
    await pollers.stop();
    client.destroy();

    // Assess: every message ran; at most 6 receives each (32 loops made one per loop and message)
    expect(seen.length).toBe(20);
    expect(perMessage).toBeLessThanOrEqual(6);
  });
});
