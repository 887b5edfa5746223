import { type AdminAnswer, AdminAnswerError } from './answer';

/** Sends admin API requests somewhere (the local platform or a deployed admin Lambda) and returns the answers. */
export interface AdminClient {
  /** Where requests go, for messages: `the local platform at http://127.0.0.1:4750`. */
  readonly description: string;
  /** Sends one request; rejects with `AdminUnavailableError` when the admin API cannot be reached. */
  send(request: Readonly<Record<string, unknown>>): Promise<AdminAnswer>;
  /** Releases the SDK client's sockets. */
  close(): void;
}

/**
 * Sends a request and returns the `result` of an `{ ok: true }` answer; an `{ ok: false }` answer
 * throws `AdminAnswerError` (exit 2 for bad input, 1 otherwise).
 *
 * @example
 * const { schedule } = await callAdmin<{ schedule: WireSchedule }>(client, { action: 'get_schedule', id: 'nightly' });
 */
export async function callAdmin<Result>(
  client: AdminClient,
  request: Readonly<Record<string, unknown>>,
  fieldFlags: Readonly<Record<string, string>> = {},
): Promise<Result> {
  const answer = await client.send(request);
  if (!answer.ok) throw new AdminAnswerError(answer.error, fieldFlags);
  return answer.result as Result;
}
