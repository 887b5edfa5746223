import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterEach, describe, expect, it } from 'vitest';
import {
  EventBridgePublisher,
  type PublishFailure,
} from '../../../lib/adapters/eventbridge/eventbridge-publisher';
import type { JobEvent } from '../../../lib/core/ports/event-publisher';
import {
  type PutEventsEntry,
  type PutEventsServer,
  startPutEventsServer,
} from '../../../lib/local/put-events-server';
import { assertLocalEndpoint } from '../../support/dynamodb';
import { streamUntilAnswered } from '../../support/streamed-upload';

let server: PutEventsServer | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

function event(index: number): JobEvent {
  return {
    type: index % 2 === 0 ? 'job.succeeded' : 'job.failed',
    jobId: `job-${index}`,
    task: 'send-report',
    scheduleId: 'nightly',
    attempt: 1,
    at: Date.parse('2026-03-02T10:00:00Z'),
  };
}

async function publisherAgainstLocalServer(options: Parameters<typeof startPutEventsServer>[0] = {}) {
  const requests: PutEventsEntry[][] = [];
  server = await startPutEventsServer({ ...options, onEvents: (entries) => requests.push(entries) });
  const failures: PublishFailure[] = [];
  const publisher = new EventBridgePublisher({
    client: new EventBridgeClient({
      endpoint: assertLocalEndpoint(server.endpoint),
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
    eventBusName: 'sundial-events',
    onPublishFailure: (failure) => failures.push(failure),
  });
  return { publisher, requests, failures };
}

describe('EventBridgePublisher (against the local PutEvents endpoint)', () => {
  it("publishes in batches of ten with source 'sundial', the event type as detail-type and the event as detail", async () => {
    // Prepare
    const { publisher, requests, failures } = await publisherAgainstLocalServer();
    const events = Array.from({ length: 23 }, (_, index) => event(index));

    // Act
    await publisher.publish(events);

    // Assess
    expect(requests.map((entries) => entries.length).sort()).toEqual([10, 10, 3]);
    const entry = requests.flat().find((candidate) => JSON.parse(candidate.Detail ?? '{}').jobId === 'job-1');
    expect(entry).toMatchObject({
      Source: 'sundial',
      DetailType: 'job.failed',
      EventBusName: 'sundial-events',
    });
    expect(JSON.parse(entry?.Detail ?? '{}')).toEqual(event(1));
    expect(failures).toEqual([]);
  });

  it('reports the entries EventBridge rejected, with their error codes, without throwing', async () => {
    // Prepare: the bus rejects failure events
    const { publisher, requests, failures } = await publisherAgainstLocalServer({
      rejectEntry: (entry) => (entry.DetailType === 'job.failed' ? 'ThrottlingException' : undefined),
    });

    // Act
    await publisher.publish([event(0), event(1), event(2), event(3)]);

    // Assess
    expect(requests.flat()).toHaveLength(2);
    expect(failures).toEqual([{ ids: ['job-1', 'job-3'], codes: ['ThrottlingException'] }]);
  });

  it('answers only PutEvents, on 127.0.0.1', async () => {
    // Prepare
    server = await startPutEventsServer();

    // Act
    const response = await fetch(server.endpoint, {
      method: 'POST',
      headers: { 'x-amz-target': 'AWSEvents.ListRules' },
      body: '{}',
    });

    // Assess
    expect(new URL(server.endpoint).hostname).toBe('127.0.0.1');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ __type: 'UnknownOperationException' });
  });

  it('refuses a request from another site', async () => {
    server = await startPutEventsServer();
    const put = (headers: Record<string, string>) =>
      fetch(server?.endpoint ?? '', {
        method: 'POST',
        headers: { 'x-amz-target': 'AWSEvents.PutEvents', ...headers },
        body: '{"Entries":[]}',
      });

    const crossSite = await put({ origin: 'https://evil.example' });
    const sameMachine = await put({});

    expect(crossSite.status).toBe(403);
    expect(await crossSite.json()).toMatchObject({ __type: 'AccessDeniedException' });
    expect(sameMachine.status).toBe(200);
  });

  it('refuses a body over 1 MiB while it streams, before the client has sent it all', async () => {
    server = await startPutEventsServer();
    const headers = { 'x-amz-target': 'AWSEvents.PutEvents' };

    const chunked = await streamUntilAnswered(server.endpoint, {
      totalBytes: 64 * 1024 * 1024,
      declareLength: false,
      headers,
    });
    const declared = await streamUntilAnswered(server.endpoint, {
      totalBytes: 64 * 1024 * 1024,
      declareLength: true,
      headers,
    });

    for (const answer of [chunked, declared]) {
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toMatchObject({ __type: 'RequestTooLargeException' });
      expect(answer.sentAllBeforeAnswer).toBe(false);
    }
  });
});
