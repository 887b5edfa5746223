import { describe, expect, it } from 'vitest';
import type { Sleep } from '../../../lib/core/clock';
import { silentLogger } from '../../../lib/runtime/observability/logger';
import { defineTask } from '../../../lib/runtime/tasks/define-task';
import { runTaskHandler } from '../../../lib/runtime/worker/run-handler';
import { T0 } from '../support';

/** A sleep that never resolves a wait once its signal is aborted (as the simulation's does). */
const droppingSleep: Sleep = (_ms, signal) =>
  new Promise((resolve) => {
    if (signal?.aborted) return;
    const timer = setTimeout(resolve, 60_000);
    signal?.addEventListener('abort', () => clearTimeout(timer), { once: true });
  });

const context = {
  jobId: 'j',
  scheduleId: null,
  fireTime: null,
  attempt: 1,
  metadata: {},
  logger: silentLogger,
};

describe('runTaskHandler: a cancellation', () => {
  it("aborts the handler's signal and ends cancelled, also with a sleep that drops an aborted wait", async () => {
    const cancel = new AbortController();
    let seen: unknown;
    const definition = defineTask({
      handler: (_payload, { signal }) =>
        new Promise<never>((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            seen = signal.reason;
            reject(signal.reason);
          });
        }),
    });
    const now = T0;

    const ending = runTaskHandler({
      definition,
      payload: null,
      context,
      deadline: now + 600_000,
      holdUntil: null,
      clock: { now: () => now },
      sleep: droppingSleep,
      cancel: cancel.signal,
    });
    cancel.abort();
    const end = await ending;

    expect(seen).toMatchObject({ name: 'CancelledError' });
    expect(end).toMatchObject({
      cancelled: true,
      stillRunning: false,
      outcome: { ok: false, retryable: false, error: { type: 'CancelledError' } },
    });
  });
});
