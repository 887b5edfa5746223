import type { EpochMs } from '../../core/clock';
import { StoreUnavailableError } from '../../core/errors';
import type { WorkerContext } from './worker-context';

const FIRST_PAUSE_MS = 250;
const MAX_PAUSE_MS = 2_000;
/** The last try starts at least this long before `until`, so it lands while the run is still ours. */
const UNTIL_MARGIN_MS = 1_000;

/**
 * Runs a write of a run (its claim, its ending); while the store answers `StoreUnavailableError` (its
 * adapter retried each call already), tries the same write again with growing pauses until shortly
 * before `until`: an outage (a burst of throttling) shorter than that never costs a second run of the
 * handler. The store tells a write made again that its earlier try applied (ADR 0001). Any other
 * error (the store refused this write, or the lease is lost) is thrown at once: the same write would
 * fail again.
 */
export async function writeWithRetries<T>(
  ctx: WorkerContext,
  until: EpochMs,
  write: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      const pause = Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** (attempt - 1));
      const left = until - UNTIL_MARGIN_MS - ctx.deps.clock.now();
      if (!(error instanceof StoreUnavailableError) || pause >= left) throw error;
      await ctx.deps.sleep(pause);
    }
  }
}
