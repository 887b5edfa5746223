import { request } from 'node:http';
import { InvokeCommand, LambdaClient, ResourceNotFoundException } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLambdaEndpoint } from '../../lib/local/lambda-endpoint';
import { streamUntilAnswered } from '../support/streamed-upload';

let url: string;
let close: () => Promise<void>;
let lambda: LambdaClient;

beforeAll(async () => {
  const endpoint = await startLambdaEndpoint({
    port: 0,
    functions: new Map([
      ['echo', { handler: async (event: unknown) => ({ received: event }), timeoutMs: 1_000 }],
      [
        'broken',
        {
          handler: async () => {
            throw new TypeError('boom');
          },
          timeoutMs: 1_000,
        },
      ],
    ]),
  });
  url = endpoint.url;
  close = () => new Promise((resolve) => endpoint.server.close(() => resolve()));
  lambda = new LambdaClient({
    endpoint: url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
  });
});

afterAll(async () => {
  lambda.destroy();
  await close();
});

function post(path: string, body: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const target = new URL(path, url);
    const req = request(target, { method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the local Lambda Invoke endpoint', () => {
  it('invokes a function through the real Lambda SDK client, by name or ARN', async () => {
    const byName = await lambda.send(
      new InvokeCommand({ FunctionName: 'echo', Payload: Buffer.from('{"a":1}') }),
    );
    const byArn = await lambda.send(
      new InvokeCommand({
        FunctionName: 'arn:aws:lambda:us-east-1:000000000000:function:echo',
        Payload: Buffer.from('2'),
      }),
    );

    expect(JSON.parse(Buffer.from(byName.Payload ?? []).toString())).toEqual({ received: { a: 1 } });
    expect(JSON.parse(Buffer.from(byArn.Payload ?? []).toString())).toEqual({ received: 2 });
  });

  it('answers an unknown function with ResourceNotFoundException naming the local functions', async () => {
    const error = await lambda
      .send(new InvokeCommand({ FunctionName: 'nope' }))
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ResourceNotFoundException);
    expect((error as Error).message).toContain('local functions: echo, broken');
  });

  it('reports a handler that throws as FunctionError Unhandled, like Lambda', async () => {
    const output = await lambda.send(new InvokeCommand({ FunctionName: 'broken' }));

    expect(output.FunctionError).toBe('Unhandled');
    expect(JSON.parse(Buffer.from(output.Payload ?? []).toString())).toEqual({
      errorType: 'TypeError',
      errorMessage: 'boom',
    });
  });

  it('rejects a body that is not JSON', async () => {
    const answer = await post('/2015-03-31/functions/echo/invocations', '{not json');

    expect(answer.status).toBe(400);
    expect(answer.body).toContain('Could not parse request body into json');
  });

  it('rejects a function name that is not valid percent-encoding, naming it, as the caller’s mistake', async () => {
    const answer = await post('/2015-03-31/functions/%E0%A4%A/invocations', '{}');

    expect(answer.status).toBe(400);
    expect(answer.body).toContain("function name '%E0%A4%A' is not valid percent-encoding");
  });

  describe('refuses a body over 6 MB while it streams, without reading the rest', () => {
    const invocations = () => `${url}/2015-03-31/functions/echo/invocations`;
    const LARGE = 64 * 1024 * 1024;

    it('answers 413 at once when Content-Length says the body is too large', async () => {
      const answer = await streamUntilAnswered(invocations(), { totalBytes: LARGE, declareLength: true });

      expect(answer.status).toBe(413);
      expect(answer.headers['x-amzn-errortype']).toBe('RequestTooLargeException');
      expect(answer.sentAllBeforeAnswer).toBe(false);
    });

    it('answers 413 once a body without Content-Length passes the limit', async () => {
      const answer = await streamUntilAnswered(invocations(), { totalBytes: LARGE, declareLength: false });

      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toMatchObject({ Type: 'User' });
      expect(answer.sentAllBeforeAnswer).toBe(false);
      expect(answer.sentBeforeAnswer).toBeLessThan(LARGE / 2);
    });

    it('refuses a too-large body on every route of the port, not only invocations', async () => {
      const answer = await streamUntilAnswered(`${url}/api/admin`, {
        totalBytes: LARGE,
        declareLength: false,
      });

      expect(answer.status).toBe(413);
      expect(answer.sentAllBeforeAnswer).toBe(false);
    });

    it('still takes a body of exactly 6 MB', async () => {
      const payload = JSON.stringify('x'.repeat(6 * 1024 * 1024 - 2));

      const answer = await post('/2015-03-31/functions/echo/invocations', payload);

      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).received).toHaveLength(6 * 1024 * 1024 - 2);
    });
  });

  it('refuses cross-site browser requests and foreign Host headers', async () => {
    const crossSite = await post('/2015-03-31/functions/echo/invocations', '{}', {
      origin: 'https://evil.example',
    });
    const rebound = await post('/2015-03-31/functions/echo/invocations', '{}', { host: 'evil.example:80' });

    expect(crossSite.status).toBe(403);
    expect(rebound.status).toBe(403);
  });
});
