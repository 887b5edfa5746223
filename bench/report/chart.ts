import { highestLoad, loadLabel } from './fire-lag-section';
import { type BenchReport, costRows } from './markdown';
import { costPerMillion, EVENTBRIDGE_SCHEDULER_PER_MILLION } from './prices';
import { histogram, type LineSeries, lineChart, stackedBars, svgDocument } from './svg';

const WIDTH = 860;

/**
 * The README's chart: cost per million jobs by part (vs EventBridge Scheduler), the fire-lag histogram
 * of the highest load, and the fire-lag p99 over all fires against the store's load, Sundial and BullMQ.
 */
export function renderChart(report: BenchReport): string {
  const bars = costRows(report).map(({ label, costs }) => {
    const cost = costPerMillion(costs);
    return {
      label,
      parts: [
        { name: 'DynamoDB writes', value: cost.dynamoWrites },
        { name: 'DynamoDB reads', value: cost.dynamoReads },
        { name: 'SQS', value: cost.sqs },
        { name: 'Lambda requests', value: cost.lambdaRequests },
        { name: 'Lambda duration', value: cost.lambdaDuration },
      ],
    };
  });
  bars.push({
    label: 'EventBridge Scheduler',
    parts: [{ name: 'EventBridge Scheduler', value: EVENTBRIDGE_SCHEDULER_PER_MILLION }],
  });
  const groups = [
    stackedBars('Cost per million jobs (USD, us-east-1)', bars, WIDTH, (v) => `$${v.toFixed(2)}`),
  ];
  const highest = highestLoad(report.fireLag);
  if (highest) {
    const { lag, options } = highest.sundial;
    groups.push(
      histogram(
        `Fire lag at ${loadLabel(highest)}, ${options.schedules} schedules × every ${options.intervalSeconds} s: p50 ${lag.p50} ms, p99 ${lag.p99} ms, max ${lag.max} ms`,
        highest.sundial.lagsMs,
        { width: WIDTH, height: 260, binWidth: 20, limit: 1000, unit: 'ms' },
      ),
    );
    groups.push(p99AgainstLoad(report));
  }
  return svgDocument(WIDTH, groups);
}

/** Fire lag p99 over all fires against the load (% of the raw ceiling): Sundial's line and BullMQ's. */
function p99AgainstLoad(report: BenchReport): { svg: string; height: number } {
  const sundial: LineSeries = {
    name: 'Sundial',
    points: report.fireLag.map((point) => ({ x: point.loadPercent, y: point.sundial.lag.p99 })),
  };
  const bullmqPoints = report.fireLag.flatMap((point) =>
    point.bullmq.status === 'ran' ? [{ x: point.loadPercent, y: point.bullmq.lag.p99 }] : [],
  );
  const bullmq: LineSeries = {
    name: bullmqPoints.length > 0 ? 'BullMQ job schedulers' : 'BullMQ (skipped)',
    points: bullmqPoints,
  };
  return lineChart('Fire lag p99 (all fires) against the store’s load', [sundial, bullmq], {
    width: WIDTH,
    height: 320,
    xMin: 0,
    xMax: 100,
    xTicks: [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
    xLabel: `load: % of the raw conditional-write ceiling (${Math.round(report.raw.writesPerSecond)} writes/s)`,
    yLabel: 'p99, ms (log scale)',
    yUnit: ' ms',
    formatX: (value) => `${value} %`,
    formatY: (value) => value.toLocaleString('en-US'),
  });
}
