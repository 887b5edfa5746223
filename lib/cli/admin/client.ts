import type { AdminAction, AdminFields, AdminResults } from '../../core/admin-contract';
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
 * Sends one action and returns the answer, its result typed by the contract. The fields go as given:
 * values the user typed are the admin API's to check, so its messages name the rule.
 */
export async function requestAdmin<Action extends AdminAction>(
  client: AdminClient,
  action: Action,
  fields: AdminFields<Action>,
): Promise<AdminAnswer<AdminResults[Action]>> {
  // The admin API answers each action with its result in the contract: the one place this is trusted.
  return (await client.send({ ...fields, action })) as AdminAnswer<AdminResults[Action]>;
}

/**
 * Sends one action and returns its `result`; an `{ ok: false }` answer throws `AdminAnswerError`
 * (the command exits 1), its field paths pointed at the flags in `fieldFlags`.
 *
 * @example
 * const { schedule } = await callAdmin(client, 'get_schedule', { id: 'nightly' }); // schedule: WireSchedule
 */
export async function callAdmin<Action extends AdminAction>(
  client: AdminClient,
  action: Action,
  fields: AdminFields<Action>,
  fieldFlags: Readonly<Record<string, string>> = {},
): Promise<AdminResults[Action]> {
  const answer = await requestAdmin(client, action, fields);
  if (!answer.ok) throw new AdminAnswerError(answer.error, fieldFlags);
  return answer.result;
}
