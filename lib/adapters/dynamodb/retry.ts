import { sleep } from '../../core/clock';
import { StoreUnavailableError } from '../../core/errors';

export interface RetryPolicy {
  /** Total tries, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 6, baseDelayMs: 25, maxDelayMs: 1_000 };

const TRANSIENT_ERROR_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'TransactionConflictException',
  'TransactionInProgressException',
  'TimeoutError',
]);

const TRANSIENT_CANCELLATION_CODES = new Set([
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
]);

const TRANSIENT_NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN']);

/** BatchGetItem left keys unprocessed (throttled reads): the caller asks for them again. */
export class UnprocessedKeysError extends Error {
  constructor(readonly count: number) {
    super(`${count} ${count === 1 ? 'key' : 'keys'} still unprocessed by BatchGetItem`);
    this.name = 'UnprocessedKeysError';
  }
}

/** Throttling, conflicts with other transactions and server/network hiccups: worth another try. */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof UnprocessedKeysError) return true;
  if (TRANSIENT_ERROR_NAMES.has(error.name)) return true;
  const code = (error as NodeJS.ErrnoException).code;
  if (code && TRANSIENT_NETWORK_CODES.has(code)) return true;
  if (error.name === 'TransactionCanceledException') {
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    const failed = reasons.filter((reason) => reason.Code && reason.Code !== 'None');
    return failed.length > 0 && failed.every((reason) => TRANSIENT_CANCELLATION_CODES.has(reason.Code ?? ''));
  }
  return false;
}

export type Sleep = (ms: number) => Promise<void>;

export const defaultSleep: Sleep = sleep;

/**
 * Runs `call` and retries transient failures with exponential backoff and full jitter; after
 * `maxAttempts` tries throws `StoreUnavailableError` (the last error as its cause). Other errors pass
 * through. This is the store's only retry layer: its SDK client sends each request once (client.ts).
 */
export async function withRetries<T>(
  operation: string,
  policy: RetryPolicy,
  call: () => Promise<T>,
  sleep: Sleep = defaultSleep,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!isTransient(error)) throw error;
      if (attempt >= policy.maxAttempts) throw new StoreUnavailableError(operation, { cause: error });
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      await sleep(Math.random() * ceiling);
    }
  }
}
