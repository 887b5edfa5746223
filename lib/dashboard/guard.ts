import type { IncomingMessage } from 'node:http';
import { DASHBOARD_ACTIONS, DASHBOARD_HEADER } from './protocol';

/** The admin actions the server forwards for the page. */
export const ALLOWED_ACTIONS: ReadonlySet<string> = new Set(DASHBOARD_ACTIONS);

export interface Rejection {
  status: number;
  code: string;
  message: string;
}

/**
 * The `Host` must be this server's own loopback address (`127.0.0.1:<port>` or `localhost:<port>`):
 * a page on another name that resolves to 127.0.0.1 (DNS rebinding) is refused.
 */
export function hostProblem(request: IncomingMessage): Rejection | undefined {
  const port = request.socket.localPort;
  const host = request.headers.host ?? '';
  if (host === `127.0.0.1:${port}` || host === `localhost:${port}`) return undefined;
  return {
    status: 403,
    code: 'forbidden_host',
    message: `the dashboard answers only to 127.0.0.1:${port} and localhost:${port}, not '${host}'`,
  };
}

/**
 * What makes a POST to the API safe from other websites open in the same browser: our Host, the
 * custom header, a JSON body, and no foreign `Origin` / `Sec-Fetch-Site`.
 */
export function apiRequestProblem(request: IncomingMessage): Rejection | undefined {
  const hostRejection = hostProblem(request);
  if (hostRejection) return hostRejection;
  if (request.method !== 'POST') return { status: 405, code: 'method_not_allowed', message: 'use POST' };
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== `http://${request.headers.host}`) {
    return { status: 403, code: 'forbidden_origin', message: `requests from ${origin} are not allowed` };
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') {
    return {
      status: 403,
      code: 'forbidden_origin',
      message: `cross-site requests (${site}) are not allowed`,
    };
  }
  if (request.headers[DASHBOARD_HEADER] !== '1') {
    return { status: 403, code: 'missing_header', message: `send the header ${DASHBOARD_HEADER}: 1` };
  }
  if (!/^application\/json(;|$)/i.test(request.headers['content-type'] ?? '')) {
    return { status: 415, code: 'unsupported_media_type', message: 'send the request as application/json' };
  }
  return undefined;
}

/** The request itself: a JSON object whose action is on the allow-list. */
export function actionProblem(request: unknown): Rejection | undefined {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    return {
      status: 400,
      code: 'invalid_input',
      message: 'the body must be a JSON object: { "action": "...", ...fields }',
    };
  }
  const action = (request as { action?: unknown }).action;
  if (typeof action === 'string' && ALLOWED_ACTIONS.has(action)) return undefined;
  return {
    status: 403,
    code: 'action_not_allowed',
    message: `the dashboard does not forward '${String(action)}'; allowed: ${[...ALLOWED_ACTIONS].join(', ')}`,
  };
}
