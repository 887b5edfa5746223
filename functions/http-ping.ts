import * as z from 'zod';
import { defineTask, NonRetryableError } from '../lib/runtime/sdk';

/**
 * Checks that a URL answers with a success status. Server errors and timeouts are retried with
 * backoff; a 4xx answer means the request itself is wrong, so it fails at once (NonRetryableError).
 */
export default defineTask({
  payloadSchema: z.object({
    url: z.url(),
    /** Per-request limit; the job's own deadline (ctx.signal) applies as well. */
    requestTimeoutMs: z.number().int().min(100).max(60_000).default(5_000),
  }),
  timeoutSeconds: 30,
  retry: { maxAttempts: 4, backoffSeconds: 5, maxBackoffSeconds: 60 },
  events: 'failures',
  async handler({ url, requestTimeoutMs }, { signal, logger }) {
    const startedAt = Date.now();
    const response = await fetch(url, {
      method: 'GET',
      redirect: 'follow',
      signal: AbortSignal.any([signal, AbortSignal.timeout(requestTimeoutMs)]),
    });
    await response.body?.cancel();
    const durationMs = Date.now() - startedAt;
    if (response.status >= 400 && response.status < 500) {
      throw new NonRetryableError(
        `${url} answered ${response.status}: not retried, fix the URL or the service`,
      );
    }
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    logger.info('ping ok', { status: response.status, durationMs });
    return { status: response.status, durationMs };
  },
});
