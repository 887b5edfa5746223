import { describe, expect, it } from 'vitest';
import { renderChart } from '../../bench/report/chart';
import { type BenchReport, costRows, renderMarkdown } from '../../bench/report/markdown';
import { lagWritesOf, schedulesForLoad, storeUse } from '../../bench/support/load-curve';
import { bullmqRun, COSTS, fireLagPoint, sundialRun } from './fire-lag-fakes';

/** Three loads: Sundial's p99 100, 150, 400 ms; BullMQ's 98, 100, 200 ms. */
function curveReport(): BenchReport {
  return {
    startedAt: new Date('2026-11-28T08:54:27Z'),
    seconds: 600,
    environment: ['a test'],
    raw: { writesPerSecond: 1000, writes: 10_000, concurrency: 32 },
    dispatch: [],
    fireLag: [
      fireLagPoint(25, sundialRun([5, 7, 100], 568), bullmqRun([40, 50, 98], 568)),
      fireLagPoint(50, sundialRun([6, 9, 150], 1136), bullmqRun([45, 60, 100], 1136)),
      fireLagPoint(75, sundialRun([8, 30, 400], 1705), bullmqRun([50, 70, 200], 1705)),
    ],
  };
}

describe('the fire-lag curve', () => {
  it('sizes each load from the ceiling after the idle writes, each schedule writing its fires and its removal', () => {
    const writes = { idlePerSecond: 50, perFire: 2.5, perScheduleEnd: 6 };
    const sized = (loadPercent: number, durationSeconds: number, idlePerSecond = writes.idlePerSecond) =>
      schedulesForLoad({
        loadPercent,
        rawWritesPerSecond: 1000,
        intervalSeconds: 5,
        durationSeconds,
        writes: { ...writes, idlePerSecond },
      });

    // 200 WRU/s for schedules that each write 2.5 ÷ 5 s for their fires and 6 ÷ 120 s for their removal
    expect(sized(25, 120)).toBe(364);
    // A shorter run spreads each removal over fewer seconds: fewer schedules
    expect(sized(25, 30)).toBe(286);
    // The idle platform alone is past the share: one schedule, the run still measures its use
    expect(sized(5, 120, 80)).toBe(1);
  });

  it('takes what a calibration run wrote apart: the removals, then per fire net of the idle writes', () => {
    const calibration = {
      meteredWriteUnits: 9_600,
      executed: 600,
      options: { schedules: 100, intervalSeconds: 5, durationSeconds: 30 },
      costs: { scheduleEndWru: 1 },
    };

    // 600 WRU of removals (6 per schedule); (9,000 ÷ 30 s − 60 idle) ÷ 20 fires/s = 12 per fire
    expect(lagWritesOf(calibration, 60)).toEqual({ idlePerSecond: 60, perFire: 12, perScheduleEnd: 6 });
  });

  it("measures the store's use as the metered WRU per second of the fires over the ceiling", () => {
    const run = { ...sundialRun([1, 2, 3]), meteredWriteUnits: 60_000 };

    expect(storeUse(run, 1000)).toBe(0.5);
  });

  it('prints one row per load: store use, both p50 · p99, steady p99, runs, and the ratio of the p99s', () => {
    const markdown = renderMarkdown(curveReport(), 'chart.svg');

    expect(markdown).toContain("## Fire lag against the store's load");
    expect(markdown).toContain('| load (of ceiling) | schedules | jobs/s | store use |');
    expect(markdown).toContain(
      '| 25 % | 568 | 114 | 25 % | 7 · **100 ms** | **7 ms** | 3/3 · 0 | 50 · **98 ms** | **98 ms** | 3/3 · 0 | 1.02× |',
    );
    expect(markdown).toContain(
      '| 50 % | 1,136 | 227 | 50 % | 9 · **150 ms** | **9 ms** | 3/3 · 0 | 60 · **100 ms** | **100 ms** | 3/3 · 0 | 1.50× |',
    );
    expect(markdown).toContain(
      '| 75 % | 1,705 | 341 | 75 % | 30 · **400 ms** | **30 ms** | 3/3 · 0 | 70 · **200 ms** | **200 ms** | 3/3 · 0 | 2.00× |',
    );
    // The detail: each run's distribution, BullMQ's over Sundial's steady window (its fires at 10 s and 60 s)
    expect(markdown).toContain(
      '| 75 % | Sundial | 30 ms | 400 ms | 400 ms | 400 ms | +5.0 s to +115.0 s | 1 | 30 ms | 30 ms | 30 ms |',
    );
    expect(markdown).toContain(
      '| 75 % | BullMQ | 70 ms | 200 ms | 200 ms | 200 ms | +5.0 s to +115.0 s | 2 | 70 ms | 200 ms | 200 ms |',
    );
    expect(markdown.match(/^Steady: the fires from one interval/gm)).toHaveLength(1);
    expect(markdown).toContain(
      'the platform idle (50.0 WRU/s with no schedule), then a short run of the same scenario (2.60 WRU per fire, 6.00 per schedule',
    );
    expect(markdown).not.toContain('skipped');
  });

  it('costs a steady row per load, and the schedules ending only at the highest load', () => {
    const report = curveReport();
    const highest = report.fireLag[2];
    if (highest) highest.sundial.expected = 1705 * 24;

    const labels = costRows(report).map((row) => row.label);

    expect(labels).toEqual([
      '568 × every 5 s, 25 % load (steady)',
      '1,136 × every 5 s, 50 % load (steady)',
      '1,705 × every 5 s, 75 % load (steady)',
      '1,705 × every 5 s, 75 % load, ending after 24 fires',
    ]);
    expect(costRows(curveReport())[0]?.costs.wru).toBeCloseTo(COSTS.wru - COSTS.scheduleEndWru, 9);
  });

  it("draws the highest load's histogram and the p99 of both systems against the load, on a log scale", () => {
    const svg = renderChart(curveReport());

    expect(svg).toContain('Fire lag at 75 % load, 1705 schedules × every 5 s: p50 30 ms, p99 400 ms');
    expect(svg).toContain('Fire lag p99 (all fires) against the store’s load');
    const series = (name: string) =>
      svg.match(new RegExp(`<g data-series="${name}">([\\s\\S]*?)</g>`))?.[1] ?? '';
    expect(series('Sundial')).toContain('<polyline');
    expect(series('Sundial').match(/<circle/g)).toHaveLength(3);
    expect(series('Sundial')).toContain('<title>Sundial, 75 %: 400 ms</title>');
    expect(series('BullMQ job schedulers').match(/<circle/g)).toHaveLength(3);
    expect(series('BullMQ job schedulers')).toContain('<title>BullMQ job schedulers, 25 %: 98 ms</title>');
    // Log ticks at 1, 2 and 5 from below the least p99 (98 ms) to above the largest (400 ms); the load
    // from 0 to 100 % of the ceiling
    for (const tick of ['>50<', '>100<', '>200<', '>500<', '>0 %<', '>50 %<', '>100 %<']) {
      expect(svg).toContain(tick);
    }
    expect(svg).not.toContain('>20<');
    expect(svg).not.toContain('>1,000<');
    expect(svg).not.toContain('NaN');
  });

  it('gives every table of the report as many cells in each row as its header has', () => {
    const dispatched = {
      size: 1000,
      ticks: 1,
      tickSeconds: 1.9,
      schedulesPerSecond: 516,
      jobsEnqueued: 1000,
      executed: 1000,
      drainSeconds: 60,
      costs: COSTS,
    };
    const markdown = renderMarkdown({ ...curveReport(), dispatch: [dispatched] }, 'chart.svg');
    const cells = (line: string) => line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').length;
    const tables = markdown.split(/\n(?!\|)/).filter((block) => block.trimStart().startsWith('|'));
    expect(tables.length).toBeGreaterThan(3);
    for (const table of tables) {
      const [header = '', ...rows] = table.trim().split('\n');
      for (const row of rows) expect({ row, cells: cells(row) }).toEqual({ row, cells: cells(header) });
    }
  });

  it('leaves the fire-lag section, its cost rows and its charts out of a run with --lag-loads 0', () => {
    const report = { ...curveReport(), fireLag: [] };

    expect(renderMarkdown(report, 'chart.svg')).not.toContain('Fire lag');
    expect(costRows(report)).toEqual([]);
    expect(renderChart(report)).not.toContain('Fire lag');
  });
});
