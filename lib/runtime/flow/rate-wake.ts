import { randomUUID } from 'node:crypto';
import type { EpochMs } from '../../core/clock';
import { LIMITS } from '../../core/limits';
import type { TaskSlots } from '../../core/ports/waiting-line';
import { sendWoken, type WakeDeps } from './woken';

/**
 * Wakes the line of a rate-limited task for its next start time: one job, sent with the queue delay
 * that brings it back in the last second before that time (SQS delays in whole seconds; the worker
 * waits out the rest). One wake-up per start time: the store books it, so the many jobs refused in one
 * interval wake one job, not one each. A start time that has come is booked as it stands, not as
 * "now": until its woken job takes it, every later caller finds it booked (a backlog that joins while
 * the store is slow would otherwise wake one job per joiner). A booking whose booker died before it
 * woke anyone goes stale (`rateWakeStaleBefore`) and is booked over by the next caller, the tick at
 * the latest. A booking that found nobody to wake is given back and the line read again: a job that
 * joined after it was read found the booking and woke nobody itself, and is seen then (its join came
 * before its booking, refused before the give-back, and both reads are strongly consistent), and
 * booked for again. Returns how many messages were sent: the one woken for the start, and any later
 * copy moved into an entry woken before (`movedIn`).
 */
export async function wakeForNextStart(
  deps: WakeDeps,
  slots: TaskSlots,
  options: WakeOptions = {},
): Promise<number> {
  if (slots.paused || (slots.limit !== null && slots.running >= slots.limit)) return 0;
  const now = deps.clock.now();
  const at = slots.nextStartAt ?? now;
  // SQS delays at most 15 minutes: a start further away is woken by a tick once it comes within reach.
  if (at - now > LIMITS.maxQueueDelaySeconds * 1000) return 0;
  // The wake-up for this start was used without a start: its booking would refuse the one passed on
  if (options.passOn) await deps.jobStore.releaseRateWake(slots.task, at);
  let sent = 0;
  for (let round = 0; round < MAX_BOOKING_ROUNDS; round++) {
    if (!(await deps.jobStore.bookRateWake({ task: slots.task, at, token: randomUUID(), now }))) return sent;
    const woken = await deps.jobStore.wakeHeads({ task: slots.task, now, count: 1, take: 'start' });
    // A later copy moved into an entry woken before took no start now: it goes at once.
    sent += await sendWoken(
      deps,
      woken.filter((entry) => entry.movedIn),
    );
    const forStart = woken.filter((entry) => !entry.movedIn);
    if (forStart.length > 0) return sent + (await sendWoken(deps, forStart, wakeDelaySeconds(at, now)));
    await deps.jobStore.releaseRateWake(slots.task, at);
    if (!(await deps.jobStore.lineHead(slots.task))) return sent;
  }
  return sent;
}

/** How many times a wake-up is booked again for jobs that joined while it was booked (each one round trip apart). */
const MAX_BOOKING_ROUNDS = 4;

export interface WakeOptions {
  /**
   * A wake-up is being passed on: the job it brought ended without a start (a missed deadline, a
   * duplicate, a cancelled job) or went back to the line (its task was paused, then resumed).
   */
  passOn?: boolean;
}

/** The whole seconds of queue delay that bring a message back no later than `at` (and at most 1 s before). */
export function wakeDelaySeconds(at: EpochMs, now: EpochMs): number {
  return Math.max(0, Math.floor((at - now) / 1000));
}
