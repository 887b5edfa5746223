import { describe, expect, it } from 'vitest';
import { maxInWindow } from '../../bench/scenarios/rate-limited-task';

describe('the rate-limit bench: most starts in any window', () => {
  it('counts the starts of the busiest window of the given length, a start at its end excluded', () => {
    expect(maxInWindow([], 1000)).toBe(0);
    expect(maxInWindow([0, 200, 400, 600, 800, 1000], 1000)).toBe(5);
    expect(maxInWindow([0, 200, 400, 600, 800, 999], 1000)).toBe(6);
    expect(maxInWindow([0, 5000, 5100, 5200], 1000)).toBe(3);
  });
});
