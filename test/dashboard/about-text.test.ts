import { describe, expect, it } from 'vitest';
import { aboutText } from '../../lib/dashboard/page/schedules-view';

describe('the dashboard says what a schedule is for under its id', () => {
  it('its description, critical when it is, and its metadata', () => {
    expect(
      aboutText({
        description: 'Invoices',
        priority: 'critical',
        metadata: { tier: 'gold', owner: 'billing' },
      }),
    ).toBe('Invoices · critical · owner=billing, tier=gold');
    expect(aboutText({ description: null, priority: 'critical', metadata: {} })).toBe('critical');
    expect(aboutText({ description: 'Nightly', metadata: { team: 'ops' } })).toBe('Nightly · team=ops');
    expect(aboutText({ description: null, metadata: {} })).toBe('');
  });
});
