import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqsJobQueue } from '../../../lib/adapters/sqs/sqs-job-queue';
import { decodeJobMessage } from '../../../lib/core/model/job-message';
import type { Priority } from '../../../lib/core/model/priority';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import { createTestQueue, type LocalSqs, startLocalSqs } from '../../support/sqs';

let sqs: LocalSqs;

beforeAll(async () => {
  sqs = await startLocalSqs();
});

afterAll(async () => {
  await sqs.stop();
});

function message(id: string, priority?: Priority): JobMessage {
  return {
    job: {
      id,
      task: 'echo',
      payload: { id },
      origin: 'direct',
      scheduleId: null,
      fireTime: null,
      runAt: 1_000,
      startDeadline: null,
      ...(priority && { priority }),
    },
    attempt: 1,
    delaySeconds: 0,
  };
}

/** Receives what the queue holds now (up to 10 per round, a few rounds); waits `waitSeconds` per round. */
async function receive(queueUrl: string, waitSeconds = 0) {
  const received: { id: string; receiptHandle: string }[] = [];
  for (let round = 0; round < 3; round++) {
    const output = await sqs.client.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: waitSeconds,
      }),
    );
    for (const entry of output.Messages ?? []) {
      const decoded = decodeJobMessage(entry.Body ?? '');
      if (decoded.ok) received.push({ id: decoded.message.job.id, receiptHandle: entry.ReceiptHandle ?? '' });
    }
  }
  return received;
}

describe('SqsJobQueue with a queue for critical jobs (against the SQS emulator)', () => {
  it('sends critical and woken jobs to the critical queue and the others to the jobs queue, the message unchanged', async () => {
    const main = await createTestQueue(sqs.client);
    const critical = await createTestQueue(sqs.client);
    const queue = new SqsJobQueue({
      client: sqs.client,
      queueUrl: main.queueUrl,
      criticalQueueUrl: critical.queueUrl,
    });

    const { failed } = await queue.send([
      message('normal-1'),
      message('urgent-1', 'critical'),
      message('normal-2', 'normal'),
      message('urgent-2', 'critical'),
      { ...message('woken'), woken: true },
    ]);

    // A woken job holds a slot handed to it while its message travels: it does not wait behind the backlog
    expect(failed).toEqual([]);
    expect((await receive(main.queueUrl)).map((received) => received.id).sort()).toEqual([
      'normal-1',
      'normal-2',
    ]);
    expect((await receive(critical.queueUrl)).map((received) => received.id).sort()).toEqual([
      'urgent-1',
      'urgent-2',
      'woken',
    ]);
  });

  it('sends critical jobs to the jobs queue when there is no critical queue', async () => {
    const main = await createTestQueue(sqs.client);
    const queue = new SqsJobQueue({ client: sqs.client, queueUrl: main.queueUrl });

    await queue.send([message('urgent', 'critical'), message('normal')]);

    expect((await receive(main.queueUrl)).map((received) => received.id).sort()).toEqual([
      'normal',
      'urgent',
    ]);
  });

  it('changes the visibility of a message in the queue it came from', async () => {
    const main = await createTestQueue(sqs.client, { visibilityTimeoutSeconds: 30 });
    const critical = await createTestQueue(sqs.client, { visibilityTimeoutSeconds: 30 });
    const queue = new SqsJobQueue({
      client: sqs.client,
      queueUrl: main.queueUrl,
      criticalQueueUrl: critical.queueUrl,
    });
    await queue.send([message('urgent', 'critical')]);
    const [first] = await receive(critical.queueUrl);
    if (!first) throw new Error('the critical message was not received');

    await queue.changeVisibility(
      { receiptHandle: first.receiptHandle, eventSourceARN: critical.queueArn },
      1,
    );
    const back = await receive(critical.queueUrl, 2);

    expect(back.map((received) => received.id)).toEqual(['urgent']);
  });
});
