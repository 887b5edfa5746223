import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Clock, systemClock } from '../core/clock';
import { loadAssets, PAGE_SECURITY_HEADERS } from './assets';
import { actionProblem, apiRequestProblem, hostProblem, type Rejection } from './guard';
import { API_PATH, NOW_HEADER } from './protocol';
import type { ExtraRoute, InvokeAdmin } from './types';

/** Requests of the page are a few hundred bytes; anything near this is not from the page. */
const MAX_API_BODY_BYTES = 64 * 1024;

export interface DashboardRouteOptions {
  /** Forwards an allow-listed admin request (the local platform calls the admin handler; the CLI invokes the Lambda). */
  invokeAdmin: InvokeAdmin;
  /** The page shows relative times against this clock (sent as `NOW_HEADER`). @default systemClock */
  clock?: Clock;
}

/**
 * The dashboard as a route of an existing server: `GET /` (the page), `GET /assets/*` (its CSS and
 * ES modules) and `POST /api/admin` (allow-listed admin requests). Resolves to false for any other
 * request, so it can sit beside the Lambda Invoke API on the local platform's port.
 *
 * @example
 * const dashboard = createDashboardRoute({ invokeAdmin: (request) => adminHandler(request) });
 * await startLambdaEndpoint({ port: 4750, functions, extraRoutes: [dashboard] });
 */
export function createDashboardRoute(options: DashboardRouteOptions): ExtraRoute {
  const assets = loadAssets();
  const clock = options.clock ?? systemClock;
  return async (request, body, response) => {
    const path = (request.url ?? '').split('?')[0] ?? '';
    if (path === API_PATH) {
      await serveApi(request, body, response, options.invokeAdmin, clock);
      return true;
    }
    const asset = assets.get(path === '/index.html' ? '/' : path);
    if (!asset || (request.method !== 'GET' && request.method !== 'HEAD')) return false;
    const rejection = hostProblem(request);
    if (rejection) {
      reject(response, rejection);
      return true;
    }
    response.writeHead(200, {
      'content-type': asset.contentType,
      'content-length': asset.body.length,
      ...PAGE_SECURITY_HEADERS,
    });
    response.end(request.method === 'HEAD' ? undefined : asset.body);
    return true;
  };
}

async function serveApi(
  request: IncomingMessage,
  body: Buffer,
  response: ServerResponse,
  invokeAdmin: InvokeAdmin,
  clock: Clock,
): Promise<void> {
  const rejection = apiRequestProblem(request) ?? sizeProblem(body);
  if (rejection) return reject(response, rejection);
  let adminRequest: unknown;
  try {
    adminRequest = JSON.parse(body.toString('utf8'));
  } catch {
    return reject(response, { status: 400, code: 'invalid_input', message: 'the body is not valid JSON' });
  }
  const actionRejection = actionProblem(adminRequest);
  if (actionRejection) return reject(response, actionRejection);
  let answer: unknown;
  try {
    answer = await invokeAdmin(adminRequest);
  } catch (error) {
    const message = `the admin API could not be reached: ${error instanceof Error ? error.message : String(error)}`;
    return reject(response, { status: 502, code: 'unavailable', message });
  }
  sendJson(response, 200, answer, { [NOW_HEADER]: String(clock.now()) });
}

function sizeProblem(body: Buffer): Rejection | undefined {
  if (body.length <= MAX_API_BODY_BYTES) return undefined;
  return { status: 413, code: 'too_large', message: `the body must be at most ${MAX_API_BODY_BYTES} bytes` };
}

function reject(response: ServerResponse, rejection: Rejection): void {
  sendJson(response, rejection.status, {
    ok: false,
    error: { code: rejection.code, message: rejection.message },
  });
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  response.end(text);
}
