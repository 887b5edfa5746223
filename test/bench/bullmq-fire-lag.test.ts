import { afterEach, describe, expect, it } from 'vitest';
import { fireLagSection } from '../../bench/report/fire-lag-section';
import { bullmqFireLagScenario } from '../../bench/scenarios/bullmq-fire-lag';
import { fireLagPoint, sundialRun } from './fire-lag-fakes';

const originalPath = process.env.PATH;

afterEach(() => {
  process.env.PATH = originalPath;
});

describe('BullMQ side by side', () => {
  it('is skipped where redis-server is not installed (CI), and the report says how to get it', async () => {
    process.env.PATH = '/nonexistent';

    const result = await bullmqFireLagScenario({
      schedules: 1000,
      intervalSeconds: 5,
      durationSeconds: 120,
      concurrency: 32,
      log: () => {},
    });

    expect(result).toEqual({ status: 'skipped', reason: 'redis-server not installed' });
    const point = { ...fireLagPoint(50, sundialRun([10, 20, 30])), bullmq: result };
    const section = fireLagSection([point], 1000).join('\n');
    expect(section).toContain(
      'BullMQ runs skipped: redis-server not installed (`apt-get install redis-server` puts it on PATH',
    );
    expect(section.match(/BullMQ runs skipped/g)).toHaveLength(1);
    expect(section).toContain(
      '| 50 % | 1,000 | 200 | 50 % | 20 · **30 ms** | **20 ms** | 3/3 · 0 | – | – | – | – |',
    );
  });
});
