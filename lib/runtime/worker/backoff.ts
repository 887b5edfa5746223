import type { RetryPolicy } from '../tasks/define-task';

/**
 * The delay before attempt `failedAttempt + 1`: exponential (backoffSeconds · 2^(failedAttempt − 1),
 * capped at maxBackoffSeconds) with full jitter, so retries of many jobs that failed together spread out.
 */
export function retryDelayMs(policy: RetryPolicy, failedAttempt: number, random: () => number): number {
  const ceiling = Math.min(policy.maxBackoffSeconds, policy.backoffSeconds * 2 ** (failedAttempt - 1)) * 1000;
  return Math.floor(random() * ceiling);
}

const ATTEMPT_WAIT_BASE_SECONDS = 2;
const ATTEMPT_WAIT_MAX_SECONDS = 300;

/**
 * How long a message for attempt n+1 waits (hidden in the queue) while attempt n is still marked
 * running: grows with each receive, and is jittered (half fixed, half random) so waiting messages do
 * not all come back at once. (Jobs waiting for a slot wait in their task's line instead.)
 */
export function attemptWaitSeconds(receiveCount: number, random: () => number): number {
  const ceiling = Math.min(
    ATTEMPT_WAIT_MAX_SECONDS,
    ATTEMPT_WAIT_BASE_SECONDS * 2 ** Math.max(0, receiveCount - 1),
  );
  return Math.max(1, Math.round(ceiling / 2 + random() * (ceiling / 2)));
}
