import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { storeClient } from '../../lib/adapters/dynamodb/client';
import { withoutSdkLogging } from '../../lib/adapters/sdk-logging';
import { queueClient } from '../../lib/adapters/sqs/client';

const steps = (client: { middlewareStack: { identify(): string[] } }) =>
  client.middlewareStack.identify().map((entry) => entry.split(' ')[0]);

describe("the SDK's logging step", () => {
  it('is in a client as the SDK builds it (the name it is removed by)', () => {
    expect(steps(new SQSClient({ region: 'us-east-1' }))).toContain('loggerMiddleware');
  });

  it('is left out of the store, queue and event clients, and nothing else is', () => {
    const plain = steps(new SQSClient({ region: 'us-east-1' }));

    expect(steps(storeClient({ region: 'us-east-1' }))).not.toContain('loggerMiddleware');
    expect(steps(queueClient({ region: 'us-east-1' }))).toEqual(
      plain.filter((step) => step !== 'loggerMiddleware'),
    );
    expect(steps(withoutSdkLogging(new EventBridgeClient({ region: 'us-east-1' })))).not.toContain(
      'loggerMiddleware',
    );
  });
});
