import type { RuntimeConfig } from '../../../lib/runtime/config';
import { type HarnessOptions, workerHarness } from '../worker/harness';

/** A worker whose task `echo` counts the runs of each fire time (`runs`: fire time → runs). */
export function fireCountingWorker(config: Partial<RuntimeConfig> = {}, options: HarnessOptions = {}) {
  const runs = new Map<number, number>();
  const worker = workerHarness(
    {
      echo: {
        handler: (_payload, { fireTime }) => {
          const key = fireTime?.getTime() ?? 0;
          runs.set(key, (runs.get(key) ?? 0) + 1);
        },
      },
    },
    config,
    options,
  );
  return { worker, runs };
}
