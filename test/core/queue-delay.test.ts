import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../lib/core/limits';
import { parksBeyondQueueDelay, queueDelaySeconds } from '../../lib/core/ports/job-queue';

const NOW = Date.parse('2026-03-02T09:00:00Z');
const LONGEST_DELAY_MS = LIMITS.maxQueueDelaySeconds * 1000;

describe('the queue delay rule (one rule for the admin API, the worker and both stores)', () => {
  it('sends a job due within the queue’s longest delay, and parks one due later', () => {
    expect(parksBeyondQueueDelay(NOW + LONGEST_DELAY_MS, NOW)).toBe(false);
    expect(parksBeyondQueueDelay(NOW + LONGEST_DELAY_MS + 1, NOW)).toBe(true);
    expect(parksBeyondQueueDelay(NOW - 1, NOW)).toBe(false);
  });

  it('delays a message by whole seconds, at most the longest delay', () => {
    expect(queueDelaySeconds(NOW + 1_999, NOW)).toBe(1);
    expect(queueDelaySeconds(NOW - 5_000, NOW)).toBe(0);
    expect(queueDelaySeconds(NOW + 2 * LONGEST_DELAY_MS, NOW)).toBe(LIMITS.maxQueueDelaySeconds);
  });
});
