// Talks to the dashboard's API: allow-listed admin requests, sent with the header the server requires.

const API_PATH = '/api/admin';
const DASHBOARD_HEADER = 'x-sundial-dashboard';

/** Server clock minus browser clock: relative times follow the server's clock (`x-sundial-now`). */
let clockOffsetMs = 0;

/** Now, by the server's clock, in epoch milliseconds. */
export function serverNow() {
  return Date.now() + clockOffsetMs;
}

/** An `{ ok: false }` answer of the admin API, or a request the dashboard refused. */
export class AdminError extends Error {
  constructor(error) {
    super(`${error.code}: ${error.message}`);
    this.name = 'AdminError';
    this.code = error.code;
  }
}

/**
 * Sends one admin request and resolves to its `result`; rejects with AdminError for an error answer
 * and with a TypeError when the server cannot be reached.
 *
 * @param {{ action: string } & Record<string, unknown>} request
 */
export async function admin(request) {
  const response = await fetch(API_PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [DASHBOARD_HEADER]: '1' },
    body: JSON.stringify(request),
    cache: 'no-store',
    credentials: 'omit',
  });
  const now = Number(response.headers.get('x-sundial-now'));
  if (Number.isFinite(now) && now > 0) clockOffsetMs = now - Date.now();
  const answer = await response.json();
  if (answer?.ok !== true) {
    throw new AdminError(answer?.error ?? { code: `http_${response.status}`, message: response.statusText });
  }
  return answer.result;
}
