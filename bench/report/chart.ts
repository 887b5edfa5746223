import { type BenchReport, costRows } from './markdown';
import { costPerMillion, EVENTBRIDGE_SCHEDULER_PER_MILLION } from './prices';
import { histogram, stackedBars, svgDocument } from './svg';

const WIDTH = 860;

/** The README's chart: cost per million jobs by part (vs EventBridge Scheduler), and the fire-lag histogram. */
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
  if (report.fireLag) {
    const { lag, options } = report.fireLag;
    groups.push(
      histogram(
        `Fire lag, ${options.schedules} schedules × every ${options.intervalSeconds} s: p50 ${lag.p50} ms, p99 ${lag.p99} ms, max ${lag.max} ms`,
        report.fireLag.lagsMs,
        { width: WIDTH, height: 260, binWidth: 20, limit: 1000, unit: 'ms' },
      ),
    );
  }
  return svgDocument(WIDTH, groups);
}
