import type { EpochMs } from '../../core/clock';
import { LeaseLostError, StoreUnavailableError } from '../../core/errors';
import type { JobResult } from '../../core/model/job';
import type { RunEnd } from '../../core/ports/job-store';
import type { HeldSlot } from '../../core/ports/waiting-line';
import type { Logger } from '../observability/logger';
import { toJobError } from './run-handler';
import type { WorkerContext } from './worker-context';
import { writeWithRetries } from './write-retries';

export const RESULT_NOT_STORED_ERROR_TYPE = 'ResultNotStoredError';

export interface ResultWrite {
  jobId: string;
  owner: string;
  /** The run's lease: writes are retried until shortly before it ends. */
  leaseUntil: EpochMs;
  result: JobResult;
  expiresAt: number;
  /** The slot the run holds (`FinishJobInput.heldSlot`). */
  heldSlot?: HeldSlot;
  logger: Logger;
}

/**
 * Records a run's final result. A handler is never run again because its result could not be written:
 * when the result cannot be stored, an error result without the value (`ResultNotStoredError`) is
 * recorded instead; when even that fails, nothing is recorded and undefined is returned, and the caller
 * lets the message go (a kept message would take the run over once its lease ended, and run it again).
 * Returns the result that was stored, and the store's answer. A lost lease is thrown (`LeaseLostError`):
 * the run is someone else's.
 */
export async function storeFinalResult(
  ctx: WorkerContext,
  write: ResultWrite,
): Promise<{ result: JobResult; end: RunEnd } | undefined> {
  const finish = async (result: JobResult) => {
    const end = await writeWithRetries(ctx, write.leaseUntil, () =>
      ctx.deps.jobStore.finishJob({
        jobId: write.jobId,
        owner: write.owner,
        result,
        expiresAt: write.expiresAt,
        ...(write.heldSlot !== undefined && { heldSlot: write.heldSlot }),
      }),
    );
    return { result, end };
  };
  try {
    return await finish(write.result);
  } catch (error) {
    if (error instanceof LeaseLostError) throw error;
    if (error instanceof StoreUnavailableError) return notStored(write, error);
    write.logger.error('the result could not be stored; recording an error result without it', { error });
    const fallback = resultNotStored(write.result, error);
    try {
      return await finish(fallback);
    } catch (fallbackError) {
      if (fallbackError instanceof LeaseLostError) throw fallbackError;
      return notStored(write, fallbackError);
    }
  }
}

function notStored(write: ResultWrite, error: unknown): undefined {
  write.logger.error(
    'no result could be stored: the job stays running without one, and its message is let go so that no redelivery runs this attempt again',
    { error },
  );
  return undefined;
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
