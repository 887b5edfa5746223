import type { RateLimit } from '../../core/model/rate-limit';
import { RATE_START_TOLERANCE_MS } from '../../core/model/rate-limit';
import type { Logger } from '../observability/logger';
import { type WorkerContext, waitUntil } from './worker-context';

/** A rate-limited job's handler starts this long after its claim. */
const RATE_START_ALIGN_MS = 100;
/** How long a late start waits before trying again while its task is paused. */
const PAUSED_RETAKE_WAIT_MS = 1_000;

/**
 * Waits until a rate-limited run's handler may start: `RATE_START_ALIGN_MS` after its claim, so
 * handlers start as far apart as the claims (which the store spaces), whatever each claim's store
 * round trips took (up to that much). Called right before the handler, after everything else the run
 * does first (its schedule check): a start later than `RATE_START_TOLERANCE_MS` past its aligned time
 * (a slow store call, a stalled process) could fall within a period alongside the next ones, so the
 * start is taken again (the next start time once it has come) and aligned on that. A run that cannot
 * start before its lease ends fails, and its message comes back: it is taken over as the next attempt.
 */
export async function alignRateStart(
  ctx: WorkerContext,
  run: { task: string; claimedAt: number; leaseUntil: number; rateLimit: RateLimit | null },
  logger: Logger,
): Promise<void> {
  const rate = run.rateLimit;
  if (!rate) return;
  const { clock } = ctx.deps;
  let alignedAt = run.claimedAt + RATE_START_ALIGN_MS;
  await waitUntil(ctx, alignedAt);
  while (clock.now() > alignedAt + RATE_START_TOLERANCE_MS) {
    const now = clock.now();
    if (now >= run.leaseUntil)
      throw new Error('the rate-limited run could not start on time before its lease ended');
    logger.warn('the handler could not start on time after its claim; its start is taken again', {
      lateMs: now - alignedAt,
    });
    const start = await ctx.deps.jobStore.retakeRateStart(run.task, rate, now);
    if (start.taken) alignedAt = now + RATE_START_ALIGN_MS;
    await waitUntil(ctx, start.taken ? alignedAt : (start.nextStartAt ?? now + PAUSED_RETAKE_WAIT_MS));
  }
}
