import type { RetryPolicy } from '../tasks/define-task';

/**
 * The delay before attempt `failedAttempt + 1`: exponential (backoffSeconds · 2^(failedAttempt − 1),
 * capped at maxBackoffSeconds) with full jitter, so retries of many jobs that failed together spread out.
 */
export function retryDelayMs(policy: RetryPolicy, failedAttempt: number, random: () => number): number {
  const ceiling = Math.min(policy.maxBackoffSeconds, policy.backoffSeconds * 2 ** (failedAttempt - 1)) * 1000;
  return Math.floor(random() * ceiling);
}

const SLOT_WAIT_BASE_SECONDS = 2;
const SLOT_WAIT_MAX_SECONDS = 300;

/**
 * How long a message waits (hidden in the queue) before it tries again for a slot of a task that is at
 * its `maxRunningJobs`: grows with each receive, and is jittered (half fixed, half random) so waiting
 * messages do not all come back at once.
 */
export function slotWaitSeconds(receiveCount: number, random: () => number): number {
  const ceiling = Math.min(
    SLOT_WAIT_MAX_SECONDS,
    SLOT_WAIT_BASE_SECONDS * 2 ** Math.max(0, receiveCount - 1),
  );
  return Math.max(1, Math.round(ceiling / 2 + random() * (ceiling / 2)));
}
