import { randomUUID } from 'node:crypto';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../lib/adapters/memory/memory-store';
import { pollOnce } from '../../../lib/adapters/sqs/event-source';
import { SqsDeadLetterQueue } from '../../../lib/adapters/sqs/sqs-dead-letter-queue';
import { sleep, systemClock } from '../../../lib/core/clock';
import { createWorkerHandler } from '../../../lib/runtime/handlers/worker';
import { silentLogger } from '../../../lib/runtime/observability/logger';
import { staticTaskRegistry } from '../../../lib/runtime/tasks/registry';
import { RecordingPublisher, RecordingQueue, testConfig } from '../../runtime/support';
import { createTestQueue, type LocalSqs, startLocalSqs } from '../../support/sqs';

let sqs: LocalSqs;

beforeAll(async () => {
  sqs = await startLocalSqs();
});

afterAll(async () => {
  await sqs.stop();
});

describe('SqsDeadLetterQueue', () => {
  it('moves an unreadable message to the DLQ at once, unchanged, and the jobs queue deletes it', async () => {
    // Prepare: a jobs queue whose redrive policy would wait for 500 receives
    const queue = await createTestQueue(sqs.client, { maxReceiveCount: 500 });
    const store = new MemoryStore();
    const deps = {
      config: testConfig({ queueUrl: queue.queueUrl, deadLetterQueueUrl: queue.dlqUrl }),
      scheduleStore: store,
      jobStore: store,
      queue: new RecordingQueue(),
      events: new RecordingPublisher(),
      deadLetters: new SqsDeadLetterQueue({ client: sqs.client, queueUrl: queue.dlqUrl }),
      clock: systemClock,
      sleep,
      random: Math.random,
      newId: randomUUID,
      logger: silentLogger,
      metricsSink: () => {},
    };
    const worker = createWorkerHandler(() => deps, staticTaskRegistry({}));
    await sqs.client.send(new SendMessageCommand({ QueueUrl: queue.queueUrl, MessageBody: 'not a job {' }));

    // Act
    const received = await pollOnce(
      { client: sqs.client, queueUrl: queue.queueUrl, waitTimeSeconds: 1 },
      worker,
    );
    const left = await sqs.client.send(
      new ReceiveMessageCommand({ QueueUrl: queue.queueUrl, WaitTimeSeconds: 1, VisibilityTimeout: 0 }),
    );
    const dead = await sqs.client.send(
      new ReceiveMessageCommand({
        QueueUrl: queue.dlqUrl,
        WaitTimeSeconds: 1,
        MessageAttributeNames: ['All'],
      }),
    );

    // Assess
    expect(received).toBe(1);
    expect(left.Messages ?? []).toEqual([]);
    expect(dead.Messages?.map((message) => message.Body)).toEqual(['not a job {']);
    expect(dead.Messages?.[0]?.MessageAttributes?.SundialReason?.StringValue).toBeTruthy();
    expect(dead.Messages?.[0]?.MessageAttributes?.SundialSourceMessageId?.StringValue).toBeTruthy();
  });
});
