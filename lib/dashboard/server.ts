import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../core/clock';
import { createDashboardRoute } from './route';
import type { InvokeAdmin } from './types';

export interface DashboardServerOptions {
  /** TCP port on 127.0.0.1; 0 picks a free one. */
  port: number;
  invokeAdmin: InvokeAdmin;
  clock?: Clock;
}

export interface DashboardServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  stop(): Promise<void>;
}

/** Bodies larger than this are cut off (the API route refuses them anyway). */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Serves the dashboard on its own, bound to 127.0.0.1 only (`sundial dashboard`): against AWS,
 * `invokeAdmin` invokes the admin Lambda with the user's own credentials.
 *
 * @example
 * const server = await startDashboardServer({ port: 4751, invokeAdmin: (request) => client.send(request) });
 * console.log(`open ${server.url}`);
 */
export async function startDashboardServer(options: DashboardServerOptions): Promise<DashboardServer> {
  const route = createDashboardRoute({
    invokeAdmin: options.invokeAdmin,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const server = createServer((request, response) => {
    readBody(request)
      .then(async (body) => {
        if (await route(request, body, response)) return;
        response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('not found\n');
      })
      .catch(() => {
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('dashboard error\n');
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}
