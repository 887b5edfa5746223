import { LeaseLostError, StoreUnavailableError } from '../../core/errors';
import type { JobResult } from '../../core/model/job';
import type { Logger } from '../observability/logger';
import { toJobError } from './run-handler';
import type { WorkerContext } from './worker-context';

/** Tries of a write that ends a run, while the store is unavailable (its adapter retried each already). */
const WRITE_TRIES = 3;
const FIRST_PAUSE_MS = 250;
export const RESULT_NOT_STORED_ERROR_TYPE = 'ResultNotStoredError';

/**
 * Runs a write that ends a run; while the store answers `StoreUnavailableError`, tries again a few times
 * with growing pauses. Any other error (the store refused this write, or the lease is lost) is thrown
 * at once: the same write would fail again.
 */
export async function writeWithRetries<T>(ctx: WorkerContext, write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof StoreUnavailableError) || attempt >= WRITE_TRIES) throw error;
      await ctx.sleep(FIRST_PAUSE_MS * 2 ** (attempt - 1));
    }
  }
}

export interface ResultWrite {
  jobId: string;
  owner: string;
  result: JobResult;
  expiresAt: number;
  logger: Logger;
}

/**
 * Records a run's final result. A handler is never run again because its result could not be written:
 * when the result cannot be stored, an error result without the value (`ResultNotStoredError`) is
 * recorded instead; when even that fails, nothing is recorded and undefined is returned, and the caller
 * lets the message go (a kept message would take the run over once its lease ended, and run it again).
 * Returns the result that was stored. A lost lease is thrown (`LeaseLostError`): the run is someone else's.
 */
export async function storeFinalResult(
  ctx: WorkerContext,
  write: ResultWrite,
): Promise<JobResult | undefined> {
  const finish = (result: JobResult) =>
    writeWithRetries(ctx, () =>
      ctx.deps.jobStore.finishJob({
        jobId: write.jobId,
        owner: write.owner,
        result,
        expiresAt: write.expiresAt,
      }),
    );
  try {
    await finish(write.result);
    return write.result;
  } catch (error) {
    if (error instanceof LeaseLostError) throw error;
    write.logger.error('the result could not be stored; recording an error result without it', { error });
    const fallback = resultNotStored(write.result, error);
    try {
      await finish(fallback);
      return fallback;
    } catch (fallbackError) {
      if (fallbackError instanceof LeaseLostError) throw fallbackError;
      write.logger.error(
        'no result could be stored: the job stays running without one, and its message is let go so that no redelivery runs this attempt again',
        { error: fallbackError },
      );
      return undefined;
    }
  }
}

function resultNotStored(result: JobResult, error: unknown): JobResult {
  const cause = toJobError(error);
  const ran =
    result.outcome === 'success' ? 'succeeded' : `ended with ${result.error?.type ?? result.outcome}`;
  const { returnValue: _dropped, error: _replaced, ...rest } = result;
  return {
    ...rest,
    outcome: 'error',
    error: {
      type: RESULT_NOT_STORED_ERROR_TYPE,
      message: `the handler ${ran}, but its result could not be stored (${cause.type}: ${cause.message}); this error stands in for it and the job is not run again`,
    },
  };
}
