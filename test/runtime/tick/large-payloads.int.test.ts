import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqsJobQueue } from '../../../lib/adapters/sqs/sqs-job-queue';
import { createTestQueue, type LocalSqs, startLocalSqs } from '../../support/sqs';
import { dispatchRuntime, MINUTE } from '../dispatch/dispatch-harness';
import { idAtPhase, SECOND, T0 } from '../support';

let sqs: LocalSqs;

beforeAll(async () => {
  sqs = await startLocalSqs();
});

afterAll(async () => {
  await sqs.stop();
});

async function messagesInQueue(queueUrl: string): Promise<number> {
  const { Attributes } = await sqs.client.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesDelayed'],
    }),
  );
  return (
    Number(Attributes?.ApproximateNumberOfMessages) + Number(Attributes?.ApproximateNumberOfMessagesDelayed)
  );
}

describe('tick with large payloads (against the SQS emulator)', () => {
  it('sends every fire of a schedule with a 125 KB payload firing every 5 s, and of the schedules beside it', async () => {
    // Prepare: 24 fires of ~125 KB in the first note's chunk (many more than the 1 MiB that fauxqs, like
    // AWS today, allows a SendMessageBatch), and three small schedules firing every 5 s too, all added
    // through the admin API; the tick reads their first notes 150 s before T0
    const runtime = dispatchRuntime();
    runtime.clock.set(T0 - 5 * MINUTE);
    const every5s = { type: 'interval', seconds: 5, start_at: new Date(T0).toISOString() } as const;
    // (their chunks start at the grid's boundaries, so one tick reads all four first notes)
    const payloads = [{ blob: 'x'.repeat(125_000) }, {}, {}, {}];
    for (const [n, payload] of payloads.entries())
      await runtime.add(idAtPhase(`schedule-${n}`), every5s, { payload });
    const { queueUrl } = await createTestQueue(sqs.client);
    runtime.deps.queue = new SqsJobQueue({ client: sqs.client, queueUrl });
    runtime.clock.set(T0 - 150 * SECOND);

    // Act
    const summary = await runtime.tick();

    // Assess
    expect(summary).toMatchObject({ schedulesProcessed: 4, jobsEnqueued: 4 * 24, sendFailures: 0 });
    expect(await messagesInQueue(queueUrl)).toBe(4 * 24);
  });
});
