// Talks to the dashboard's API: allow-listed admin requests, sent with the header the server requires.

import type { AdminErrorBody, AdminFields, AdminResponse, AdminResults } from '../../core/admin-contract';
import { API_PATH, DASHBOARD_HEADER, type DashboardAction, NOW_HEADER } from '../protocol';

/** Server clock minus browser clock: relative times follow the server's clock. */
let clockOffsetMs = 0;

/** Now, by the server's clock, in epoch milliseconds. */
export function serverNow(): number {
  return Date.now() + clockOffsetMs;
}

/** An `{ ok: false }` answer of the admin API, or a request the dashboard refused. */
export class AdminError extends Error {
  readonly code: string;

  constructor(error: Pick<AdminErrorBody, 'message'> & { code: string }) {
    super(`${error.code}: ${error.message}`);
    this.name = 'AdminError';
    this.code = error.code;
  }
}

/**
 * Sends one admin action and resolves to its `result`, typed by the contract; rejects with AdminError
 * for an error answer and with a TypeError when the server cannot be reached.
 */
export async function admin<Action extends DashboardAction>(
  action: Action,
  fields: AdminFields<Action>,
): Promise<AdminResults[Action]> {
  const response = await fetch(API_PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [DASHBOARD_HEADER]: '1' },
    body: JSON.stringify({ ...fields, action }),
    cache: 'no-store',
    credentials: 'omit',
  });
  const now = Number(response.headers.get(NOW_HEADER));
  if (Number.isFinite(now) && now > 0) clockOffsetMs = now - Date.now();
  // The server forwards the admin API's answer (or answers a refusal in the same shape).
  const answer = (await response.json()) as AdminResponse<AdminResults[Action]> | null;
  if (answer?.ok !== true) {
    throw new AdminError(answer?.error ?? { code: `http_${response.status}`, message: response.statusText });
  }
  return answer.result;
}
