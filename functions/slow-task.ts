import { setTimeout as wait } from 'node:timers/promises';
import * as z from 'zod';
import { defineTask } from '../lib/runtime/sdk';

/**
 * Waits for the given number of milliseconds, stopping early when the job's deadline aborts it.
 * At most two run at once, across all workers: a demonstration of `maxRunningJobs`.
 */
export default defineTask({
  payloadSchema: z.object({ ms: z.number().int().min(0).max(600_000) }),
  maxRunningJobs: 2,
  timeoutSeconds: 120,
  retry: { maxAttempts: 1 },
  async handler({ ms }, { signal, logger }) {
    await wait(ms, undefined, { signal });
    logger.info('waited', { ms });
    return { waitedMs: ms };
  },
});
