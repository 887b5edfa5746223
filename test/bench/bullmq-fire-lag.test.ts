import { afterEach, describe, expect, it } from 'vitest';
import { bullmqSection } from '../../bench/report/bullmq-section';
import { type BullmqFireLagResult, bullmqFireLagScenario } from '../../bench/scenarios/bullmq-fire-lag';
import type { FireLagResult } from '../../bench/scenarios/fire-lag';
import { distribution } from '../../bench/support/stats';

const originalPath = process.env.PATH;

afterEach(() => {
  process.env.PATH = originalPath;
});

const WORKLOAD = { schedules: 1000, intervalSeconds: 5, durationSeconds: 120 };

/** Lags of fires at 1 s, 10 s, then 119 s (Sundial) or 60 s (BullMQ) after the first fire time. */
function timed(lagsMs: number[], lastOffsetMs = 119_000) {
  return lagsMs.map((lagMs, index) => ({ offsetMs: [1_000, 10_000][index] ?? lastOffsetMs, lagMs }));
}

function sundialRun(lagsMs: number[]): FireLagResult {
  return {
    options: { ...WORKLOAD, workers: 32, tickSeconds: 1 },
    expected: lagsMs.length,
    executed: lagsMs.length,
    duplicates: 0,
    lagsMs,
    lag: distribution(lagsMs),
    steady: { fromMs: 5_000, toMs: 115_000, lag: distribution(lagsMs.slice(1, 2)) },
    timedLags: timed(lagsMs),
    costs: {} as FireLagResult['costs'],
  };
}

describe('BullMQ side by side', () => {
  it('is skipped, saying why, where redis-server is not installed (CI)', async () => {
    process.env.PATH = '/nonexistent';

    const result = await bullmqFireLagScenario({ ...WORKLOAD, concurrency: 32, log: () => {} });

    expect(result).toEqual({ status: 'skipped', reason: 'redis-server not installed' });
    expect(bullmqSection(sundialRun([10, 20]), result).join('\n')).toContain(
      'BullMQ run skipped: redis-server not installed.',
    );
  });

  it("prints Sundial's and BullMQ's fire lag in one table, all fires and Sundial's steady window, and BullMQ's jobs after the end date apart", () => {
    const bullmq: BullmqFireLagResult = {
      status: 'ran',
      options: { ...WORKLOAD, concurrency: 32 },
      expected: 3,
      executed: 3,
      duplicates: 0,
      unexpected: ['repeat:lag-0:1795536447000'],
      lagsMs: [40, 50, 900],
      lag: distribution([40, 50, 900]),
      timedLags: timed([40, 50, 900], 60_000),
    };

    const table = bullmqSection(sundialRun([5, 7, 250]), bullmq).join('\n');

    expect(table).toMatch(
      /\| Sundial \(tick every 1 s, 32 pollers\) \| 3 \| 3 \| 0 \| 7 ms \| 250 ms \| \*\*250 ms\*\* \| 250 ms \| 7 ms \| \*\*7 ms\*\* \|/,
    );
    expect(table).toMatch(
      /\| BullMQ \| 3 \| 3 \| 0 \| 50 ms \| 900 ms \| \*\*900 ms\*\* \| 900 ms \| 50 ms \| \*\*900 ms\*\* \|/,
    );
    expect(table).toContain('from +5 s to +115 s after');
    expect(table).toContain('BullMQ also ran 1 job at slots after');
  });
});
