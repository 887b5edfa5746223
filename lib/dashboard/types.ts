import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * An HTTP route served beside others on one server: resolves to false when the request is not
 * for it. Structurally the same as `ExtraRoute` of the local platform's Lambda endpoint
 * (lib/local/lambda-endpoint.ts), which mounts the dashboard this way.
 */
export type ExtraRoute = (
  request: IncomingMessage,
  body: Buffer,
  response: ServerResponse,
) => Promise<boolean>;

/**
 * Sends one admin API request (`{ action, ...fields }`) and resolves to its answer
 * (`{ ok: true, result }` or `{ ok: false, error }`); rejects only when the admin API cannot be reached.
 */
export type InvokeAdmin = (request: unknown) => Promise<unknown>;
