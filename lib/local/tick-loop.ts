import type { TickHandler } from '../runtime/handlers/tick';

/**
 * Runs the tick every `intervalMs` (EventBridge runs it once a minute in AWS; locally it can run
 * as often as you like, since ticks are safe to overlap). A slow tick delays the next one.
 */
export function startTickLoop(tick: TickHandler, intervalMs: number, onError: (error: unknown) => void) {
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<unknown> = Promise.resolve();
  let running = true;
  const run = () => {
    current = tick()
      .catch((error: unknown) => {
        if (running) onError(error);
      })
      .finally(() => {
        if (running) timer = setTimeout(run, intervalMs);
      });
  };
  run();
  return {
    async stop() {
      running = false;
      clearTimeout(timer);
      await current;
    },
  };
}
