import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBridgeFailureDestination } from '../../lib/adapters/eventbridge/eventbridge-failure-destination';
import { SqsFailureDestination } from '../../lib/adapters/sqs/sqs-failure-destination';
import { type FailureNotice, failureNoticeBody } from '../../lib/core/ports/failure-destination';
import { type PutEventsEntry, startPutEventsServer } from '../../lib/local/put-events-server';
import { assertLocalEndpoint } from '../support/dynamodb';
import { createTestQueue, type LocalSqs, startLocalSqs } from '../support/sqs';

const NOTICE: FailureNotice = {
  jobId: 'nightly@1772442000000',
  task: 'send-report',
  status: 'error',
  error: { type: 'Error', message: 'report service unavailable', stack: 'Error: report…\n at x' },
  attempts: 3,
  scheduleId: 'nightly',
  fireTime: Date.parse('2026-03-02T09:00:00Z'),
  finishedAt: Date.parse('2026-03-02T09:04:12.500Z'),
};

const DOCUMENTED_BODY = {
  job_id: 'nightly@1772442000000',
  task: 'send-report',
  status: 'error',
  error: { type: 'Error', message: 'report service unavailable' },
  attempts: 3,
  schedule_id: 'nightly',
  fire_time: '2026-03-02T09:00:00Z',
  finished_at: '2026-03-02T09:04:12.500Z',
};

let sqs: LocalSqs;
beforeAll(async () => {
  sqs = await startLocalSqs();
});
afterAll(async () => {
  await sqs.stop();
});

describe('failure destinations (against the SQS emulator and the local PutEvents endpoint)', () => {
  it('sends the documented body as one SQS message', async () => {
    const queue = await createTestQueue(sqs.client);

    await new SqsFailureDestination(sqs.client, queue.queueUrl).send(NOTICE);

    const received = await sqs.client.send(
      new ReceiveMessageCommand({ QueueUrl: queue.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    expect((received.Messages ?? []).map((message) => JSON.parse(message.Body ?? ''))).toEqual([
      DOCUMENTED_BODY,
    ]);
    expect(failureNoticeBody(NOTICE)).toEqual(DOCUMENTED_BODY);
  });

  it('puts the documented body on the bus as detail-type job.failed_for_good', async () => {
    const entries: PutEventsEntry[] = [];
    const server = await startPutEventsServer({ onEvents: (batch) => entries.push(...batch) });
    try {
      const client = new EventBridgeClient({
        endpoint: assertLocalEndpoint(server.endpoint),
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });

      await new EventBridgeFailureDestination(client, 'ops').send(NOTICE);

      expect(
        entries.map((entry) => [entry.Source, entry.DetailType, JSON.parse(entry.Detail ?? '')]),
      ).toEqual([['sundial', 'job.failed_for_good', DOCUMENTED_BODY]]);
    } finally {
      await server.stop();
    }
  });
});
