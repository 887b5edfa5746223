import { ReceiveMessageCommand, type SendMessageBatchRequest, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollOnce } from '../../../lib/adapters/sqs/event-source';
import { type SendFailure, SqsJobQueue } from '../../../lib/adapters/sqs/sqs-job-queue';
import { decodeJobMessage } from '../../../lib/core/model/job-message';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import {
  createTestQueue,
  type LocalSqs,
  localSqsClient,
  messagesInQueue,
  startLocalSqs,
} from '../../support/sqs';
import { batchLimitedClient } from './batch-limited-client';

let sqs: LocalSqs;

beforeAll(async () => {
  sqs = await startLocalSqs();
});

afterAll(async () => {
  await sqs.stop();
});

/** The revision a fire is sent under (every first attempt of a fire carries one). */
const REVISION = { createdAt: 1_700_000_000_000, version: 3, firesFrom: 0 };

function message(id: string, overrides: Partial<JobMessage> = {}): JobMessage {
  return {
    revision: REVISION,
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

/** A fire of `scheduleId` whose payload is a string of `bytes` characters. */
function fire(scheduleId: string, index: number, bytes = 100): JobMessage {
  const sent = message(`${scheduleId}@${index}`);
  sent.job.scheduleId = scheduleId;
  sent.job.payload = 'x'.repeat(bytes);
  return sent;
}

/** Near the 128 KB the admin API allows a payload. */
const LARGE_PAYLOAD_BYTES = 125_000;

function jobIdsOf(bodies: readonly string[]): string[] {
  return bodies
    .map((body) => decodeJobMessage(body))
    .flatMap((result) => (result.ok ? [result.message.job.id] : []))
    .sort();
}

function runAtOf(body: string): number {
  const decoded = decodeJobMessage(body);
  return decoded.ok ? decoded.message.job.runAt : Number.NaN;
}

/** Receives until `expected` messages came; each receive waits up to `waitSeconds` for one to come up. */
async function receiveAll(queueUrl: string, expected: number, waitSeconds = 0) {
  const bodies: string[] = [];
  for (let round = 0; round < 20 && bodies.length < expected; round++) {
    const output = await sqs.client.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: waitSeconds,
      }),
    );
    bodies.push(...(output.Messages ?? []).map((received) => received.Body ?? ''));
  }
  return bodies;
}

describe('SqsJobQueue (against the SQS emulator)', () => {
  it('carries the schedule revision a fire was sent under, and none for a job that is no fire', async () => {
    // Prepare
    const { queueUrl } = await createTestQueue(sqs.client);
    const queue = new SqsJobQueue({ client: sqs.client, queueUrl });
    const direct = message('nightly@2');
    delete direct.revision;
    direct.job = { ...direct.job, origin: 'direct', scheduleId: null, fireTime: null };

    // Act
    await queue.send([message('nightly@1'), direct]);
    const decoded = (await receiveAll(queueUrl, 2)).map((body) => decodeJobMessage(body));

    // Assess
    const revisions = Object.fromEntries(
      decoded.flatMap((result) =>
        result.ok ? [[result.message.job.id, result.message.revision ?? null]] : [],
      ),
    );
    expect(revisions).toEqual({ 'nightly@1': REVISION, 'nightly@2': null });
  });

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

  it('sends the earliest run times first when a send takes several requests', async () => {
    // Prepare: three schedules' fires, each schedule's together (as a tick's round builds them)
    const { queueUrl } = await createTestQueue(sqs.client);
    const client = localSqsClient(sqs.endpoint);
    const sentRunAts: number[][] = [];
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'SendMessageBatchCommand') {
          const entries = (args.input as SendMessageBatchRequest).Entries ?? [];
          sentRunAts.push(entries.map((entry) => runAtOf(entry.MessageBody ?? '')));
        }
        return next(args);
      },
      { step: 'initialize', name: 'recordSendOrder' },
    );
    const queue = new SqsJobQueue({ client, queueUrl });
    const messages = ['a', 'b', 'c'].flatMap((scheduleId, offset) =>
      Array.from({ length: 10 }, (_, index) => {
        const sent = fire(scheduleId, index);
        sent.job.runAt = 1_000 * (index * 3 + offset);
        return sent;
      }),
    );

    // Act
    const { failed } = await queue.send(messages);

    // Assess: the first request holds the ten soonest fires of all three schedules
    expect(failed).toEqual([]);
    expect(sentRunAts.flat()).toHaveLength(30);
    expect(sentRunAts[0]).toEqual(Array.from({ length: 10 }, (_, n) => n * 1_000));
    expect(sentRunAts.flat()).toEqual([...sentRunAts.flat()].sort((x, y) => x - y));
  });

  it('holds a message for its DelaySeconds', async () => {
    // Prepare
    const { queueUrl } = await createTestQueue(sqs.client);
    const queue = new SqsJobQueue({ client: sqs.client, queueUrl });

    // Act
    await queue.send([message('later', { delaySeconds: 1 })]);
    const immediately = await receiveAll(queueUrl, 1);
    const afterDelay = await receiveAll(queueUrl, 1, 5);

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
    const { failed, refused } = await queue.send([message('small-1'), huge, message('small-2')]);

    // Assess: refused for good, with the queue's reason
    expect(failed).toEqual(['huge']);
    expect(refused).toEqual([
      { jobId: 'huge', reason: expect.stringMatching(/^InvalidParameterValue: .*shorter than 1024 bytes/) },
    ]);
    expect(failures).toEqual([{ jobIds: ['huge'], codes: [expect.any(String)] }]);
    expect(await receiveAll(queueUrl, 2)).toHaveLength(2);
  });

  it('sends large messages of one schedule and small ones of others that together exceed the batch limit', async () => {
    // Prepare: 9 fires with ~125 KB payloads and 6 small fires of other schedules, 1.1 MB together.
    // fauxqs itself rejects a SendMessageBatch over 1 MiB (AWS's limit today) with BatchRequestTooLong.
    const { queueUrl } = await createTestQueue(sqs.client);
    const queue = new SqsJobQueue({ client: sqs.client, queueUrl });
    const large = Array.from({ length: 9 }, (_, index) => fire('large', index, LARGE_PAYLOAD_BYTES));
    const small = Array.from({ length: 6 }, (_, index) => fire(`small-${index}`, 0));

    // Act
    const { failed } = await queue.send([...large, ...small]);
    const bodies = await receiveAll(queueUrl, 15);

    // Assess
    expect(failed).toEqual([]);
    expect(jobIdsOf(bodies)).toEqual([...large, ...small].map((sent) => sent.job.id).sort());
  });

  it('keeps each SendMessageBatch within 256 KiB by default, as older regions and emulators require', async () => {
    // Prepare: the client is wrapped to refuse batches over 256 KiB as AWS does (fauxqs allows 1 MiB)
    const { queueUrl } = await createTestQueue(sqs.client);
    const client = batchLimitedClient(sqs.endpoint, 256 * 1024);
    const queue = new SqsJobQueue({ client, queueUrl });
    const large = Array.from({ length: 3 }, (_, index) => fire('large', index, LARGE_PAYLOAD_BYTES));
    const small = Array.from({ length: 9 }, (_, index) => fire(`small-${index}`, 0));
    const messages = [...large.slice(0, 1), ...small.slice(0, 4), ...large.slice(1), ...small.slice(4)];

    // Act
    const { failed } = await queue.send(messages);
    const bodies = await receiveAll(queueUrl, messages.length);

    // Assess
    expect(failed).toEqual([]);
    expect(client.rejectedBatches).toBe(0);
    expect(jobIdsOf(bodies)).toEqual(messages.map((sent) => sent.job.id).sort());
    client.destroy();
  });

  it('splits a batch the queue finds too long and sends every message of it', async () => {
    // Prepare: the queue is told batches may hold 1 MiB, but the region allows 256 KiB (the wrapped
    // client answers BatchRequestTooLong for the whole call, as AWS does)
    const { queueUrl } = await createTestQueue(sqs.client);
    const client = batchLimitedClient(sqs.endpoint, 256 * 1024);
    const queue = new SqsJobQueue({ client, queueUrl, maxBatchBytes: 1024 * 1024 });
    const messages = [
      ...Array.from({ length: 3 }, (_, index) => fire('large', index, LARGE_PAYLOAD_BYTES)),
      ...Array.from({ length: 7 }, (_, index) => fire(`small-${index}`, 0)),
    ];

    // Act
    const { failed } = await queue.send(messages);
    const bodies = await receiveAll(queueUrl, messages.length);

    // Assess
    expect(failed).toEqual([]);
    expect(client.rejectedBatches).toBeGreaterThan(0);
    expect(jobIdsOf(bodies)).toEqual(messages.map((sent) => sent.job.id).sort());
    client.destroy();
  });

  it('reports a message too long to send even alone as failed on its own and sends the others', async () => {
    // Prepare: one message over 256 KiB among small ones; batches over 256 KiB are refused
    const { queueUrl } = await createTestQueue(sqs.client);
    const client = batchLimitedClient(sqs.endpoint, 256 * 1024);
    const failures: SendFailure[] = [];
    const queue = new SqsJobQueue({ client, queueUrl, onSendFailure: (failure) => failures.push(failure) });
    const small = Array.from({ length: 6 }, (_, index) => fire(`small-${index}`, 0));
    const tooLong = fire('too-long', 0, 300_000);

    // Act
    const { failed, refused } = await queue.send([...small.slice(0, 3), tooLong, ...small.slice(3)]);
    const bodies = await receiveAll(queueUrl, small.length);

    // Assess
    expect(failed).toEqual([tooLong.job.id]);
    expect(refused).toEqual([
      {
        jobId: tooLong.job.id,
        reason: expect.stringMatching(/^BatchRequestTooLong: Batch requests cannot be/),
      },
    ]);
    expect(failures).toEqual([{ jobIds: [tooLong.job.id], codes: ['BatchRequestTooLong'] }]);
    expect(jobIdsOf(bodies)).toEqual(small.map((sent) => sent.job.id).sort());
    client.destroy();
  });

  it('sends payloads holding U+FFFE and U+FFFF, which SQS refuses raw, and they decode unchanged', async () => {
    // Prepare: the API accepts any JSON string; SQS allows neither character in a message body
    const { queueUrl } = await createTestQueue(sqs.client);
    const queue = new SqsJobQueue({ client: sqs.client, queueUrl });
    const odd = message('odd');
    odd.job.payload = { text: 'a\uFFFEb\uFFFFc', 'key\uFFFF': ['\uFFFF'] };

    // Act
    const { failed } = await queue.send([odd, message('plain')]);
    const bodies = await receiveAll(queueUrl, 2);

    // Assess
    expect(failed).toEqual([]);
    const payloads = bodies
      .map((body) => decodeJobMessage(body))
      .flatMap((r) => (r.ok ? [r.message.job] : []));
    expect(payloads.find((job) => job.id === 'odd')?.payload).toEqual(odd.job.payload);
  });

  it('sends payloads holding characters outside the BMP (emoji), which the emulator refuses raw, and they decode unchanged', async () => {
    // Prepare: SQS takes them; the emulator allows only #x20–#xD7FF and #xE000–#xFFFD (and tab, LF, CR)
    const { queueUrl } = await createTestQueue(sqs.client);
    const queue = new SqsJobQueue({ client: sqs.client, queueUrl });
    const sunrise = message('sunrise');
    sunrise.job.payload = { text: 'good morning \u{1F305}', '\u{1F600}': ['\u{10FFFF}', 'é\uFFFF'] };
    sunrise.job.metadata = { mood: '\u{1F642}' };

    // Act
    const { failed, refused } = await queue.send([sunrise, message('plain')]);
    const bodies = await receiveAll(queueUrl, 2);

    // Assess
    expect(failed).toEqual([]);
    expect(refused).toBeUndefined();
    const jobs = bodies.map((body) => decodeJobMessage(body)).flatMap((r) => (r.ok ? [r.message.job] : []));
    expect(jobs.find((job) => job.id === 'sunrise')).toMatchObject({
      payload: sunrise.job.payload,
      metadata: sunrise.job.metadata,
    });
  });

  it('refuses a batch byte limit SQS does not have, naming the option', () => {
    expect(
      () => new SqsJobQueue({ client: sqs.client, queueUrl: 'q', maxBatchBytes: 2 * 1024 * 1024 }),
    ).toThrow('maxBatchBytes must be a whole number of bytes from 1024 to 1048576 (got 2097152)');
  });

  it('reports every message of a batch as failed when the queue does not exist', async () => {
    // Prepare
    const queue = new SqsJobQueue({
      client: sqs.client,
      queueUrl: `${sqs.endpoint}/000000000000/no-such-queue`,
    });

    // Act
    const { failed, refused } = await queue.send([message('a'), message('b')]);

    // Assess: a failure of the queue, not of the messages: they may go through later
    expect(failed).toEqual(['a', 'b']);
    expect(refused).toBeUndefined();
  });

  it('changes the visibility of a received message so it comes back when asked', async () => {
    // Prepare
    const { queueUrl, queueArn } = await createTestQueue(sqs.client, { visibilityTimeoutSeconds: 30 });
    const queue = new SqsJobQueue({ client: sqs.client, queueUrl });
    await queue.send([message('slot-wait')]);
    const first = await sqs.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }));
    const receiptHandle = first.Messages?.[0]?.ReceiptHandle ?? '';

    // Act
    await queue.changeVisibility({ receiptHandle, eventSourceARN: queueArn }, 1);
    const hidden = await receiveAll(queueUrl, 1);
    const back = await receiveAll(queueUrl, 1, 5);

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

    // Act: poll (each receive waits for the poison to come back) until the redrive policy moved it
    const received: number[] = [];
    while (received.length < 8 && (await messagesInQueue(sqs.client, dlqUrl)) === 0) {
      received.push(await pollOnce({ client: sqs.client, queueUrl, waitTimeSeconds: 2 }, failPoison));
    }
    const inDlq = await receiveAll(dlqUrl, 1);

    // Assess
    expect(received[0]).toBe(2);
    expect(received.slice(1).reduce((sum, count) => sum + count, 0)).toBeLessThanOrEqual(2);
    expect(inDlq).toEqual(['not a job']);
    expect(await receiveAll(queueUrl, 1)).toEqual([]);
  });
});
