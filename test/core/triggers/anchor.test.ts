import { describe, expect, it } from 'vitest';
import { anchorIntervals } from '../../../lib/core/triggers';

const NOW = Date.parse('2026-03-02T09:00:00Z');

describe('anchorIntervals', () => {
  it('starts an interval without start_at now, nested ones included, and leaves the rest as written', () => {
    const anchored = anchorIntervals(
      {
        type: 'or',
        triggers: [
          { type: 'interval', minutes: 5 },
          { type: 'interval', hours: 1, start_at: '2026-01-01T00:00:00Z' },
          { type: 'cron', expression: '0 9 * * *' },
        ],
      },
      NOW,
    );

    expect(anchored).toEqual({
      type: 'or',
      triggers: [
        { type: 'interval', minutes: 5, start_at: '2026-03-02T09:00:00Z' },
        { type: 'interval', hours: 1, start_at: '2026-01-01T00:00:00Z' },
        { type: 'cron', expression: '0 9 * * *' },
      ],
    });
  });
});
