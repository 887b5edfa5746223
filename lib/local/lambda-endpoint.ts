import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'aws-lambda';
import { quote } from '../core/quote';
import { type Refusal, readBoundedBody, refuseBody } from './bounded-body';
import { localLambdaContext } from './lambda-context';
import { refuseBrowserCrossSite } from './request-guard';

export type LocalFunction = (event: unknown, context: Context) => Promise<unknown>;

/** Any other HTTP route the local platform serves beside the Lambda Invoke API (events, dashboard). */
export type ExtraRoute = (
  request: IncomingMessage,
  body: Buffer,
  response: ServerResponse,
) => Promise<boolean>;

export interface LambdaEndpointOptions {
  port: number;
  functions: ReadonlyMap<string, { handler: LocalFunction; timeoutMs: number }>;
  extraRoutes?: readonly ExtraRoute[];
}

const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations\/?$/;
/** Lambda's limit for a synchronous Invoke payload; bodies past it are refused while they stream. */
const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;
/** Lambda's answer to an Invoke payload over the limit (any route of this port gets it). */
const TOO_LARGE: Refusal = {
  status: 413,
  headers: { 'content-type': 'application/json', 'x-amzn-ErrorType': 'RequestTooLargeException' },
  body: JSON.stringify({
    Type: 'User',
    message: `Request must be smaller than ${MAX_PAYLOAD_BYTES} bytes for the InvokeFunction operation`,
  }),
};

/**
 * Serves the Lambda Invoke API on 127.0.0.1 only (and refuses browsers' cross-site requests), so `aws lambda invoke --endpoint-url` and
 * `@aws-sdk/client-lambda` reach the local functions unchanged. Errors follow the real service:
 * unknown functions answer 404 `ResourceNotFoundException`; a handler that throws answers 200 with
 * `X-Amz-Function-Error: Unhandled`.
 */
export async function startLambdaEndpoint(
  options: LambdaEndpointOptions,
): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const refusal = refuseBrowserCrossSite(request, (server.address() as AddressInfo).port);
    if (refusal) {
      request.resume();
      sendJson(response, 403, { message: refusal });
      return;
    }
    readBoundedBody(request, MAX_PAYLOAD_BYTES)
      .then((body) =>
        body === undefined
          ? refuseBody(request, response, TOO_LARGE)
          : route(options, request, body, response),
      )
      .catch((error: unknown) =>
        sendJson(response, 500, { message: `local endpoint error: ${String(error)}` }),
      );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}` };
}

async function route(
  options: LambdaEndpointOptions,
  request: IncomingMessage,
  body: Buffer,
  response: ServerResponse,
): Promise<void> {
  const match = INVOKE_PATH.exec(request.url?.split('?')[0] ?? '');
  if (request.method === 'POST' && match) {
    const name = decodedName(match[1] ?? '');
    if (name === undefined) {
      sendJson(
        response,
        400,
        { Type: 'User', message: `function name ${quote(match[1] ?? '')} is not valid percent-encoding` },
        { 'x-amzn-ErrorType': 'InvalidRequestContentException' },
      );
      return;
    }
    await invoke(options, name, body, response);
    return;
  }
  for (const extra of options.extraRoutes ?? []) {
    if (await extra(request, body, response)) return;
  }
  sendJson(response, 404, { message: `no route for ${request.method} ${quote(request.url ?? '')}` });
}

async function invoke(options: LambdaEndpointOptions, name: string, body: Buffer, response: ServerResponse) {
  const fn = options.functions.get(functionNameOf(name));
  if (!fn) {
    const known = [...options.functions.keys()].join(', ');
    sendJson(
      response,
      404,
      { Type: 'User', message: `Function not found: ${quote(name)} (local functions: ${known})` },
      {
        'x-amzn-ErrorType': 'ResourceNotFoundException',
      },
    );
    return;
  }
  let event: unknown;
  try {
    event = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
  } catch {
    sendJson(
      response,
      400,
      { Type: 'User', message: 'Could not parse request body into json' },
      {
        'x-amzn-ErrorType': 'InvalidRequestContentException',
      },
    );
    return;
  }
  try {
    const result = await fn.handler(event, localLambdaContext(name, fn.timeoutMs));
    sendJson(response, 200, result ?? null, { 'X-Amz-Executed-Version': '$LATEST' });
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    sendJson(
      response,
      200,
      { errorType: failure.name, errorMessage: failure.message },
      {
        'X-Amz-Executed-Version': '$LATEST',
        'X-Amz-Function-Error': 'Unhandled',
      },
    );
  }
}

function decodedName(encoded: string): string | undefined {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}

/** Accepts a plain name, a partial ARN or a full ARN, like the real Invoke API. */
function functionNameOf(nameOrArn: string): string {
  const parts = nameOrArn.split(':');
  const functionIndex = parts.indexOf('function');
  return functionIndex >= 0 ? (parts[functionIndex + 1] ?? nameOrArn) : nameOrArn;
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}
