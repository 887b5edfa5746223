import type { EpochMs } from '../clock';

// The rule of `JobStore.repairCounters`, shared by both stores.

/**
 * How long apart two counter repairs must have seen the same count, with no slot taken or given back in
 * between, before a counter is lowered: the running index is eventually consistent, so a slot taken just
 * before a repair may not show in it yet, and lowering from such a count would let a claim exceed the limit.
 */
export const COUNTER_REPAIR_SETTLE_MS = 60_000;

/** A task counter as a repair sees it: `seq` changes with every slot taken or given back. */
export interface TaskCounter {
  running: number;
  seq: number;
  /** What an earlier repair counted while the counter was at `seq`, and when. */
  observed?: CounterObservation;
}

export interface CounterObservation {
  seq: number;
  count: number;
  at: EpochMs;
}

/** `set`: write `running` if the counter is unchanged; `observe`: keep the observation on the counter. */
export type CounterRepair =
  | { action: 'none' }
  | { action: 'set'; running: number }
  | { action: 'observe'; observation: CounterObservation };

/**
 * The rule both stores follow to repair a counter from `counted` slot holders. Every write is conditional
 * on the counter's `seq` (and `running`) being what the repair read, so a slot taken or given back in the
 * meantime voids it (a count compared with `running` alone passes when a finish and a claim cancel out).
 * Raising is safe for the limit and happens at once. Lowering happens only when an earlier repair, at
 * least `COUNTER_REPAIR_SETTLE_MS` before, saw the same `seq` and the same count: every slot change was
 * then older than the settle period and shows in the count.
 */
export function counterRepair(counter: TaskCounter, counted: number, now: EpochMs): CounterRepair {
  if (counted === counter.running) return { action: 'none' };
  if (counted > counter.running) return { action: 'set', running: counted };
  const { observed } = counter;
  const sameAsObserved = observed?.seq === counter.seq && observed.count === counted;
  if (sameAsObserved && now - observed.at >= COUNTER_REPAIR_SETTLE_MS)
    return { action: 'set', running: counted };
  if (sameAsObserved) return { action: 'none' };
  return { action: 'observe', observation: { seq: counter.seq, count: counted, at: now } };
}
