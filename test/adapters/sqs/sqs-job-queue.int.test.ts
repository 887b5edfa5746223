import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollOnce } from '../../../lib/adapters/sqs/event-source';
import { type SendFailure, SqsJobQueue } from '../../../lib/adapters/sqs/sqs-job-queue';
import { decodeJobMessage } from '../../../lib/core/model/job-message';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import { createTestQueue, type LocalSqs, startLocalSqs } from '../../support/sqs';

let sqs: LocalSqs;

beforeAll(async () => {
  sqs = await startLocalSqs();
});

afterAll(async () => {
  await sqs.stop();
});

function message(id: string, overrides: Partial<JobMessage> = {}): JobMessage {
  return {
    job: {
      id,
      task: 'echo',
      payload: { id },
      origin: 'schedule',
      scheduleId: 'nightly',
      fireTime: 1_000,
      runAt: 1_000,
      startDeadline: null,
    },
    attempt: 1,
    delaySeconds: 0,
    ...overrides,
  };
}

async function receiveAll(queueUrl: string, expected: number) {
  const bodies: string[] = [];
  for (let round = 0; round < 20 && bodies.length < expected; round++) {
    const output = await sqs.client.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
    );
    bodies.push(...(output.Messages ?? []).map((received) => received.Body ?? ''));
  }
  return bodies;
}

describe('SqsJobQueue (against the SQS emulator)', () => {
  it('sends any number of messages in batches of ten, each a versioned job message', async () => {
    // Prepare
    const { queueUrl } = await createTestQueue(sqs.client);
    const queue = new SqsJobQueue({ client: sqs.client, queueUrl });
    const messages = Array.from({ length: 23 }, (_, index) => message(`nightly@${index}`));

    // Act
    const { failed } = await queue.send(messages);
    const bodies = await receiveAll(queueUrl, 23);

    // Assess
    expect(failed).toEqual([]);
    const decoded = bodies.map((body) => decodeJobMessage(body));
    expect(decoded.every((result) => result.ok)).toBe(true);
    expect(JSON.parse(bodies[0] ?? '{}').v).toBe(1);
    const ids = decoded.flatMap((result) => (result.ok ? [result.message.job.id] : []));
    expect(ids.sort()).toEqual(messages.map((sent) => sent.job.id).sort());
  });

  it('holds a message for its DelaySeconds', async () => {
    // Prepare
    const { queueUrl } = await createTestQueue(sqs.client);
    const queue = new SqsJobQueue({ client: sqs.client, queueUrl });

    // Act
    await queue.send([message('later', { delaySeconds: 1 })]);
    const immediately = await receiveAll(queueUrl, 1);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const afterDelay = await receiveAll(queueUrl, 1);

    // Assess
    expect(immediately).toEqual([]);
    expect(afterDelay).toHaveLength(1);
  });

  it('returns the job ids of entries the queue rejected and sends the others', async () => {
    // Prepare: one message is larger than the queue accepts
    const { queueUrl } = await createTestQueue(sqs.client, { maximumMessageSizeBytes: 1024 });
    const failures: SendFailure[] = [];
    const queue = new SqsJobQueue({
      client: sqs.client,
      queueUrl,
      onSendFailure: (failure) => failures.push(failure),
    });
    const huge = message('huge');
    huge.job.payload = 'x'.repeat(2048);

    // Act
    const { failed } = await queue.send([message('small-1'), huge, message('small-2')]);

    // Assess
    expect(failed).toEqual(['huge']);
    expect(failures).toEqual([{ jobIds: ['huge'], codes: [expect.any(String)] }]);
    expect(await receiveAll(queueUrl, 2)).toHaveLength(2);
  });

  it('reports every message of a batch as failed when the queue does not exist', async () => {
    // Prepare
    const queue = new SqsJobQueue({
      client: sqs.client,
      queueUrl: `${sqs.endpoint}/000000000000/no-such-queue`,
    });

    // Act
    const { failed } = await queue.send([message('a'), message('b')]);

    // Assess
    expect(failed).toEqual(['a', 'b']);
  });

  it('changes the visibility of a received message so it comes back when asked', async () => {
    // Prepare
    const { queueUrl } = await createTestQueue(sqs.client, { visibilityTimeoutSeconds: 30 });
    const queue = new SqsJobQueue({ client: sqs.client, queueUrl });
    await queue.send([message('slot-wait')]);
    const first = await sqs.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }));
    const receiptHandle = first.Messages?.[0]?.ReceiptHandle ?? '';

    // Act
    await queue.changeVisibility(receiptHandle, 1);
    const hidden = await receiveAll(queueUrl, 1);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const back = await receiveAll(queueUrl, 1);

    // Assess
    expect(hidden).toEqual([]);
    expect(back).toHaveLength(1);
  });
});

describe('pollOnce (the SQS event source mapping, locally)', () => {
  it('deletes handled messages, redelivers reported failures, and the redrive policy moves a poison message to the DLQ', async () => {
    // Prepare: a queue whose messages move to the DLQ on their 2nd receive; a visibility timeout of 1 s
    const { queueUrl, dlqUrl } = await createTestQueue(sqs.client, {
      maxReceiveCount: 2,
      visibilityTimeoutSeconds: 1,
    });
    await sqs.client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'not a job' }));
    await new SqsJobQueue({ client: sqs.client, queueUrl }).send([message('fine')]);
    const failPoison = async (event: {
      Records: { messageId: string; body: string }[];
    }): Promise<SQSBatchResponse> => ({
      batchItemFailures: event.Records.filter((record) => record.body === 'not a job').map((record) => ({
        itemIdentifier: record.messageId,
      })),
    });

    // Act
    const received: number[] = [];
    for (let round = 0; round < 4; round++) {
      received.push(await pollOnce({ client: sqs.client, queueUrl }, failPoison));
      await new Promise((resolve) => setTimeout(resolve, 1_100));
    }
    const inDlq = await receiveAll(dlqUrl, 1);

    // Assess
    expect(received[0]).toBe(2);
    expect(received.slice(1).reduce((sum, count) => sum + count, 0)).toBeLessThanOrEqual(2);
    expect(inDlq).toEqual(['not a job']);
    expect(await receiveAll(queueUrl, 1)).toEqual([]);
  });
});
