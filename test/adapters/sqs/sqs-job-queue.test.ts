import type { BatchResultErrorEntry, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { SqsJobQueue } from '../../../lib/adapters/sqs/sqs-job-queue';
import type { JobMessage } from '../../../lib/core/ports/job-queue';

type Entry = NonNullable<SendMessageBatchCommand['input']['Entries']>[number];

/** A client that answers each SendMessageBatch entry as `answer` says, and keeps what it was sent. */
function scriptedClient(answer: (entry: Entry, call: number) => Omit<BatchResultErrorEntry, 'Id'> | 'ok') {
  const calls: Entry[][] = [];
  const client = {
    async send(command: SendMessageBatchCommand) {
      const entries = command.input.Entries ?? [];
      calls.push(entries);
      const answers = entries.map((entry) => ({ entry, answer: answer(entry, calls.length) }));
      return {
        Successful: answers
          .filter(({ answer }) => answer === 'ok')
          .map(({ entry }) => ({ Id: entry.Id, MessageId: 'm', MD5OfMessageBody: '' })),
        Failed: answers.flatMap(({ entry, answer }) =>
          answer === 'ok' ? [] : [{ Id: entry.Id, ...answer }],
        ),
      };
    },
  };
  return { client: client as unknown as SQSClient, calls };
}

function message(id: string, payload: unknown = { id }): JobMessage {
  return {
    job: {
      id,
      task: 'echo',
      payload: payload as JobMessage['job']['payload'],
      origin: 'direct',
      scheduleId: null,
      fireTime: null,
      runAt: 1_000,
      startDeadline: null,
    },
    attempt: 1,
    delaySeconds: 0,
  };
}

describe('SqsJobQueue: what the queue refuses for good', () => {
  it('sends characters outside the BMP raw to a queue that takes them, as SQS does', async () => {
    // Prepare
    const { client, calls } = scriptedClient(() => 'ok');
    const queue = new SqsJobQueue({ client, queueUrl: 'q' });

    // Act
    const outcome = await queue.send([message('sunrise', { text: '\u{1F305}' })]);

    // Assess: one request, the emoji as it is (4 bytes, not a 12-byte escape)
    expect(outcome).toEqual({ failed: [] });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.[0]?.MessageBody).toContain('\u{1F305}');
  });

  it('reports a throttled or failed entry as failed but not refused: it may go through later', async () => {
    // Prepare: the service throttles one entry and fails another on its side, each time
    const { client, calls } = scriptedClient((entry) =>
      entry.MessageBody?.includes('"throttled"')
        ? { Code: 'RequestThrottled', SenderFault: true, Message: 'slow down' }
        : entry.MessageBody?.includes('"broken"')
          ? { Code: 'InternalError', SenderFault: false, Message: 'oops' }
          : 'ok',
    );
    const queue = new SqsJobQueue({ client, queueUrl: 'q' });

    // Act
    const outcome = await queue.send([message('throttled'), message('broken'), message('fine')]);

    // Assess: the service's own failure was sent once more; neither counts as refused
    expect(outcome.failed.sort()).toEqual(['broken', 'throttled']);
    expect(outcome.refused).toBeUndefined();
    expect(calls.map((entries) => entries.length)).toEqual([3, 1]);
  });

  it("reports a message the queue refuses for its content or size as refused, with the queue's words", async () => {
    // Prepare
    const { client } = scriptedClient((entry) =>
      entry.MessageBody?.includes('"huge"')
        ? {
            Code: 'InvalidParameterValue',
            SenderFault: true,
            Message: 'Message must be shorter than 262144 bytes.',
          }
        : 'ok',
    );
    const queue = new SqsJobQueue({ client, queueUrl: 'q' });

    // Act
    const outcome = await queue.send([message('huge'), message('fine')]);

    // Assess
    expect(outcome).toEqual({
      failed: ['huge'],
      refused: [
        { jobId: 'huge', reason: 'InvalidParameterValue: Message must be shorter than 262144 bytes.' },
      ],
    });
  });

  it('escapes characters outside the BMP once a queue refuses them raw, and sends the message again', async () => {
    // Prepare: a queue that takes only the BMP, as the emulator
    const { client, calls } = scriptedClient((entry) =>
      /[\u{10000}-\u{10FFFF}]/u.test(entry.MessageBody ?? '')
        ? { Code: 'InvalidMessageContents', SenderFault: true, Message: 'Invalid characters found.' }
        : 'ok',
    );
    const queue = new SqsJobQueue({ client, queueUrl: 'q' });

    // Act
    const outcome = await queue.send([message('sunrise', { text: 'a\u{1F305}b' })]);

    // Assess: sent again with the emoji as the JSON escapes of its halves, which decode to it
    expect(outcome).toEqual({ failed: [] });
    const resent = calls[1]?.[0]?.MessageBody ?? '';
    expect(resent).toContain('a\\uD83C\\uDF05b');
    expect(JSON.parse(resent).job.payload).toEqual({ text: 'a\u{1F305}b' });
  });
});
