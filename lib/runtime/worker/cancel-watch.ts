import type { Logger } from '../observability/logger';
import type { WorkerContext } from './worker-context';

/** How often a running handler's job item is read for a `cancel_job` request (ADR 0012). */
export const CANCEL_CHECK_MS = 5_000;

/** A watch on one run: `asked` is aborted when `cancel_job` asks it to stop; `stop` ends the watch. */
export interface CancelWatch {
  asked: AbortSignal;
  stop(): void;
}

/**
 * Reads the run's job item every `CANCEL_CHECK_MS` while its handler runs (a handler that ends sooner
 * costs no read), until the request is seen or the watch is stopped. A read that fails is tried again
 * at the next check: a missed request delays the stop, it never loses it (a later attempt's claim sees it).
 */
export function watchCancellation(
  ctx: WorkerContext,
  run: { jobId: string; owner: string },
  logger: Logger,
): CancelWatch {
  const asked = new AbortController();
  const stopped = new AbortController();
  const { jobStore, sleep } = ctx.deps;
  void (async () => {
    for (;;) {
      await sleep(CANCEL_CHECK_MS, stopped.signal);
      if (stopped.signal.aborted) return;
      try {
        if (await jobStore.isCancelRequested(run.jobId, run.owner)) {
          if (!stopped.signal.aborted) asked.abort();
          return;
        }
      } catch (error) {
        logger.warn('could not read whether the job was cancelled; reading again at the next check', {
          error,
        });
      }
    }
  })();
  return { asked: asked.signal, stop: () => stopped.abort() };
}
