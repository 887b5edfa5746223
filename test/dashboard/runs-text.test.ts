import { describe, expect, it } from 'vitest';
import { runsText } from '../../lib/dashboard/page/schedules-view';

describe('the dashboard shows how often a schedule fired', () => {
  it('against its max_runs when it has one, else the count once it fired', () => {
    expect(runsText({ runs: 2, max_runs: 3 })).toBe('2 of 3 runs');
    expect(runsText({ runs: 0, max_runs: null })).toBe('');
    expect(runsText({ runs: 1, max_runs: null })).toBe('1 run');
    expect(runsText({ runs: 12, max_runs: null })).toBe('12 runs');
  });
});
