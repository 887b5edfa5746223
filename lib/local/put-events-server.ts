import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Refusal, readBoundedBody, refuseBody } from './bounded-body';
import { refuseBrowserCrossSite } from './request-guard';

/** One entry of a `PutEvents` request, as the EventBridge JSON protocol spells it. */
export interface PutEventsEntry {
  Source?: string;
  DetailType?: string;
  Detail?: string;
  EventBusName?: string;
  Time?: number | string;
  Resources?: string[];
}

export interface PutEventsServerOptions {
  /** Receives the accepted entries of each request. */
  onEvents?: (entries: PutEventsEntry[]) => void;
  /** Return an error code to reject an entry (to exercise failure handling); undefined accepts it. */
  rejectEntry?: (entry: PutEventsEntry) => string | undefined;
  /** @default 0 (a free port) */
  port?: number;
}

export interface PutEventsServer {
  /** Pass it as the EventBridge client's `endpoint` (or `AWS_ENDPOINT_URL_EVENTBRIDGE`). */
  readonly endpoint: string;
  stop(): Promise<void>;
}

const TARGET = 'AWSEvents.PutEvents';
/** Far above what Sundial sends (ten events a request); bodies past it are refused while they stream. */
const MAX_BODY_BYTES = 1024 * 1024;
const TOO_LARGE: Refusal = {
  status: 413,
  headers: { 'content-type': 'application/x-amz-json-1.1' },
  body: JSON.stringify({
    __type: 'RequestTooLargeException',
    message: `the local PutEvents endpoint takes requests of at most ${MAX_BODY_BYTES} bytes`,
  }),
};

/**
 * A local stand-in for EventBridge that understands only `PutEvents` (JSON 1.1 protocol), so the real
 * `@aws-sdk/client-eventbridge` client runs unchanged locally. Binds 127.0.0.1 only.
 */
export async function startPutEventsServer(options: PutEventsServerOptions = {}): Promise<PutEventsServer> {
  const server = createServer((request, response) => {
    handle(request, response, options).catch(() => reply(response, 500, { __type: 'InternalFailure' }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, stop: () => close(server) };
}

async function handle(request: IncomingMessage, response: ServerResponse, options: PutEventsServerOptions) {
  // Another site's page (or one whose name was rebound to 127.0.0.1) must not post events here
  const crossSite = refuseBrowserCrossSite(request, request.socket.localPort ?? 0);
  if (crossSite) {
    reply(response, 403, { __type: 'AccessDeniedException', message: crossSite });
    return;
  }
  const raw = await readBoundedBody(request, MAX_BODY_BYTES);
  if (raw === undefined) {
    refuseBody(request, response, TOO_LARGE);
    return;
  }
  const body = raw.toString('utf8');
  if (request.method !== 'POST' || request.headers['x-amz-target'] !== TARGET) {
    reply(response, 400, {
      __type: 'UnknownOperationException',
      message: 'only AWSEvents.PutEvents is served',
    });
    return;
  }
  let entries: PutEventsEntry[];
  try {
    entries = (JSON.parse(body) as { Entries?: PutEventsEntry[] }).Entries ?? [];
  } catch {
    reply(response, 400, { __type: 'SerializationException', message: 'body is not JSON' });
    return;
  }
  const results = entries.map((entry) => {
    const errorCode = options.rejectEntry?.(entry);
    return errorCode
      ? { ErrorCode: errorCode, ErrorMessage: `rejected locally: ${errorCode}` }
      : { EventId: randomUUID() };
  });
  const accepted = entries.filter((_, index) => !results[index]?.ErrorCode);
  if (accepted.length > 0) options.onEvents?.(accepted);
  reply(response, 200, { FailedEntryCount: entries.length - accepted.length, Entries: results });
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
  response.end(JSON.stringify(body));
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
