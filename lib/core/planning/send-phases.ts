import type { EpochMs } from '../clock';

/** How close to its run time a message should be delivered. */
export interface SendPhaseOptions {
  /** The earliest a message may be delivered before its run time (ms): what the worker then waits at most. */
  toleranceMs: number;
  /**
   * The latest it is delivered before its run time (ms, at most `toleranceMs`): room for the send
   * request's own time and a timer that wakes late, so the job is not delivered after its run time.
   */
  leadMs: number;
  /** The most the queue delays a message (whole seconds). */
  maxDelaySeconds: number;
}

/** Messages to send together at `sendAt`, each with its whole-second delay. */
export interface PhaseGroup<T> {
  sendAt: EpochMs;
  items: { item: T; delaySeconds: number }[];
}

interface Placed<T> {
  item: T;
  delaySeconds: number;
  /** The latest instant it may be sent with that delay (now for one sent at once). */
  latest: EpochMs;
}

/**
 * Plans when to send each message so that `sendAt + delaySeconds × 1000` lands in
 * `[runAt − toleranceMs, runAt − leadMs]`: the queue delays in whole seconds, so a message sent now
 * would arrive up to a second early and its worker would wait that second out; sent at the right
 * sub-second phase (within the next second) it arrives tens of ms early.
 *
 * Messages whose phases lie within `toleranceMs − leadMs` of each other go in one group (so
 * SendMessageBatch still carries ten): the fewest groups that keep every message inside its window
 * (greedy by latest send instant), at most `ceil(1000 / (toleranceMs − leadMs)) + 1`, and one for all
 * messages of the same phase (a herd of fires at the same instant). A message already due (less than
 * `leadMs` ahead) is sent now with no delay, and one beyond the queue's longest delay is sent now with
 * that delay (its worker sends it on): neither waits for a phase. Groups come earliest first, the
 * first at or after `now`, the last within a second of it.
 */
export function planSendPhases<T>(
  items: readonly T[],
  runAtOf: (item: T) => EpochMs,
  now: EpochMs,
  options: SendPhaseOptions,
): PhaseGroup<T>[] {
  const span = Math.max(0, options.toleranceMs - options.leadMs);
  const placed = items
    .map((item): Placed<T> => place(item, runAtOf(item), now, options))
    .sort((a, b) => a.latest - b.latest);
  const groups: PhaseGroup<T>[] = [];
  let current: PhaseGroup<T> | undefined;
  for (const { item, delaySeconds, latest } of placed) {
    // A message sent up to `span` before its latest instant still arrives inside its window.
    if (!current || latest - span > current.sendAt) {
      current = { sendAt: latest, items: [] };
      groups.push(current);
    }
    current.items.push({ item, delaySeconds });
  }
  return groups;
}

function place<T>(item: T, runAt: EpochMs, now: EpochMs, options: SendPhaseOptions): Placed<T> {
  const ahead = runAt - options.leadMs - now;
  if (ahead < 0) return { item, delaySeconds: 0, latest: now };
  const delaySeconds = Math.floor(ahead / 1000);
  if (delaySeconds > options.maxDelaySeconds) {
    return { item, delaySeconds: options.maxDelaySeconds, latest: now };
  }
  return { item, delaySeconds, latest: now + (ahead - delaySeconds * 1000) };
}
