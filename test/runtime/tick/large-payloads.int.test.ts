import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqsJobQueue } from '../../../lib/adapters/sqs/sqs-job-queue';
import { createTickHandler } from '../../../lib/runtime/handlers/tick';
import { createTestQueue, type LocalSqs, startLocalSqs } from '../../support/sqs';
import { scheduleDefinition, T0, testRuntime } from '../support';

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
    // Prepare: 18 fires of ~125 KB in the 90 s lookahead (ten of them exceed the 1 MiB that fauxqs,
    // like AWS today, allows a SendMessageBatch), and three small schedules firing every 5 s too
    const runtime = testRuntime();
    const { queueUrl } = await createTestQueue(sqs.client);
    runtime.deps.queue = new SqsJobQueue({ client: sqs.client, queueUrl });
    runtime.clock.set(T0 - 400);
    const every5s = { type: 'interval', seconds: 5, start_at: new Date(T0).toISOString() } as const;
    const payloads = { large: { blob: 'x'.repeat(125_000) }, 'small-0': {}, 'small-1': {}, 'small-2': {} };
    for (const [id, payload] of Object.entries(payloads)) {
      await runtime.store.addSchedule({
        schedule: scheduleDefinition(id, { trigger: every5s, payload }),
        nextFireAt: T0,
        conflictPolicy: 'exception',
        now: runtime.clock.now(),
      });
    }

    // Act
    const summary = await createTickHandler(() => runtime.deps)();

    // Assess
    expect(summary).toMatchObject({ schedulesProcessed: 4, jobsEnqueued: 4 * 18, sendFailures: 0 });
    expect(await messagesInQueue(queueUrl)).toBe(4 * 18);
  });
});
