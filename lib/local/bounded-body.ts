import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Reads a request body of at most `maxBytes`, or resolves `undefined` as soon as it is known to be
 * larger: at once from `Content-Length`, else when the bytes read pass the limit. Then nothing more
 * is read (the client's sending stalls) and the caller answers with {@link refuseBody}. A body is
 * never buffered past the limit.
 */
export function readBoundedBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    request.pause();
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      request.off('data', onData);
      request.pause();
      chunks.length = 0;
      resolve(undefined);
    };
    request.on('data', onData);
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** How long a refused client keeps its connection after the answer: enough to read it. */
const CLOSE_GRACE_MS = 2_000;

export interface Refusal {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Answers a request whose body was refused, without reading the rest of the body, then closes the
 * connection. The answer is written whole (with its length and `Connection: close`) but not ended:
 * ending it would make Node read and discard the rest of the body, or reset the connection before the
 * client read the answer. The client has the full answer at once; the connection is destroyed after
 * a short grace.
 */
export function refuseBody(request: IncomingMessage, response: ServerResponse, refusal: Refusal): void {
  request.pause();
  response.writeHead(refusal.status, {
    ...refusal.headers,
    'content-length': Buffer.byteLength(refusal.body),
    connection: 'close',
  });
  response.write(refusal.body);
  setTimeout(() => request.socket.destroy(), CLOSE_GRACE_MS).unref();
}
