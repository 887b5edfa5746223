import type { EpochMs } from '../../core/clock';
import type { WorkerContext } from './worker-context';

/**
 * Until when a run claimed now is leased. The worker holds a run for up to the task's timeout and, when
 * the handler ignores its abort signal, on until the invocation's end (in Lambda; the sandbox is ended
 * after it): the lease covers all of that, plus `jobLeaseMarginSeconds` to write the outcome, so neither
 * the reaper nor a redelivery takes over a run whose handler may still be running. Without a known
 * invocation end (no Lambda context) a run is leased for its timeout and the margin.
 */
export function runLeaseUntil(ctx: WorkerContext, timeoutSeconds: number, now: EpochMs): EpochMs {
  const timeoutMs = timeoutSeconds * 1000;
  const invocationMs = ctx.remainingMs();
  const heldMs = Number.isFinite(invocationMs) ? Math.max(timeoutMs, invocationMs) : timeoutMs;
  return now + heldMs + ctx.deps.config.jobLeaseMarginSeconds * 1000;
}
