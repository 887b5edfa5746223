import { request } from 'node:http';
import {
  CreateQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/local/dynamodb-local';
import { type SqsEmulator, startSqsEmulator } from '../../lib/local/sqs-emulator';

let sqs: SqsEmulator;
beforeAll(async () => {
  sqs = await startSqsEmulator();
});
afterAll(() => sqs.stop());

/** A raw POST to the emulator: the status it answers. */
function post(path: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((done, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: sqs.port,
        method: 'POST',
        path,
        headers: { ...headers, 'content-length': `${Buffer.byteLength(body)}` },
      },
      (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode ?? 0));
      },
    );
    req.on('error', fail);
    req.end(body);
  });
}

describe('the local SQS emulator', () => {
  it('serves the SDK, and lets the local platform inspect a queue', async () => {
    const client = new SQSClient({
      endpoint: sqs.endpoint,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    });
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: 'guarded' }));
    await client.send(new SendMessageCommand({ QueueUrl, MessageBody: 'hello', DelaySeconds: 60 }));

    const inspected = await sqs.inspectQueue('guarded');
    const received = await client.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 0 }));

    expect(inspected?.messages.delayed.map((message) => message.body)).toEqual(['hello']);
    expect(received.Messages ?? []).toEqual([]);
    client.destroy();
  });

  it('refuses what a page of another site can send: a form post (SNS actions), another Origin or Host, the inspection paths', async () => {
    const host = `127.0.0.1:${sqs.port}`;
    const form = 'Action=CreateTopic&Name=evil';
    const formType = 'application/x-www-form-urlencoded;charset=UTF-8';
    const json = 'application/x-amz-json-1.0';

    const crossSite = await post(
      '/',
      { host, origin: 'https://evil.example', 'content-type': formType },
      form,
    );
    const formFromHere = await post('/', { host, 'content-type': formType }, form);
    const otherHost = await post('/', { host: `evil.example:${sqs.port}`, 'content-type': json }, '{}');
    const inspection = await post('/_fauxqs/queues/guarded', { host, 'content-type': json }, '{}');

    expect([crossSite, formFromHere, otherHost, inspection]).toEqual([403, 415, 403, 403]);
  });
});
