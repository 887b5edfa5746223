/**
 * `npm run bench`: tick throughput (1k, 10k, 50k due schedules) next to the raw conditional-write
 * ceiling, fire lag under steady load, per-job capacity/requests and cost per million jobs. Starts its
 * own DynamoDB Local and SQS emulator; writes bench/results/latest.md and bench/results/chart.svg.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join, relative } from 'node:path';
import { renderChart } from './report/chart';
import { type BenchReport, renderMarkdown } from './report/markdown';
import { dispatchScenario } from './scenarios/dispatch';
import { fireLagScenario } from './scenarios/fire-lag';
import { readFlags } from './support/args';
import { rawConditionalWrites, startBenchDynamo } from './support/dynamo';
import { startBenchSqs } from './support/sqs';

const USAGE = `Usage: npm run bench -- [options]

  --sizes <list>         due schedules per tick-throughput run (default 1000,10000,50000)
  --lag-schedules <n>    schedules of the fire-lag run (default 1000; 0 skips it)
  --lag-interval <s>     their interval in seconds (default 5)
  --lag-seconds <s>      how long they fire (default 120)
  --workers <n>          worker pollers (default 32)
  --raw-writes <n>       writes of the raw-ceiling run (default 10000)
  --out <dir>            where latest.md and chart.svg go (default bench/results)
  --quick                1000 schedules, a 30 s fire-lag run: a smoke test in about a minute`;

const flags = readFlags(USAGE, {
  sizes: '1000,10000,50000',
  'lag-schedules': 1000,
  'lag-interval': 5,
  'lag-seconds': 120,
  workers: 32,
  'raw-writes': 10_000,
  out: 'bench/results',
  quick: false,
});
const RAW_CONCURRENCY = 32;

async function main(): Promise<void> {
  const startedAt = new Date();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const sizes = flags.quick
    ? [1000]
    : flags.sizes
        .split(',')
        .map(Number)
        .filter((size) => size > 0);
  const lagSeconds = flags.quick ? 30 : flags['lag-seconds'];
  const environment = [
    `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, DynamoDB Local 1.25.1 (in-memory), fauxqs 1.9.2 — client and emulators share the cores`,
    `load average when the run started: ${loadavg()
      .map((value) => value.toFixed(2))
      .join(', ')} (other engineers' work on the same machine)`,
  ];
  const [dynamo, sqs] = await Promise.all([startBenchDynamo(), startBenchSqs()]);
  try {
    log('raw conditional-write ceiling…');
    await rawConditionalWrites(dynamo, 2_000, RAW_CONCURRENCY); // warms the JVM up: not measured
    const raw = await rawConditionalWrites(dynamo, flags['raw-writes'], RAW_CONCURRENCY);
    log(`  ${raw.toFixed(0)} writes/s`);
    const report: BenchReport = {
      startedAt,
      seconds: 0,
      environment,
      raw: { writesPerSecond: raw, writes: flags['raw-writes'], concurrency: RAW_CONCURRENCY },
      dispatch: [],
      fireLag: undefined,
    };
    log('warming DynamoDB Local up (query, BatchGet and index paths; not measured)…');
    await dispatchScenario(dynamo, sqs, { size: 500, workers: flags.workers, log: () => {} });
    for (const size of sizes) {
      log(`tick throughput and cost, ${size} due schedules…`);
      report.dispatch.push(await dispatchScenario(dynamo, sqs, { size, workers: flags.workers, log }));
    }
    if (flags['lag-schedules'] > 0) {
      log('fire lag…');
      report.fireLag = await fireLagScenario(dynamo, sqs, {
        schedules: flags['lag-schedules'],
        intervalSeconds: flags['lag-interval'],
        durationSeconds: lagSeconds,
        workers: flags.workers,
        tickSeconds: 1,
        log,
      });
    }
    report.seconds = (Date.now() - startedAt.getTime()) / 1000;
    await mkdir(flags.out, { recursive: true });
    const chartPath = join(flags.out, 'chart.svg');
    await writeFile(chartPath, renderChart(report));
    const markdownPath = join(flags.out, 'latest.md');
    await writeFile(markdownPath, renderMarkdown(report, 'chart.svg'));
    log(`wrote ${relative(process.cwd(), markdownPath)} and ${relative(process.cwd(), chartPath)}`);
    process.stdout.write(renderMarkdown(report, 'chart.svg'));
  } finally {
    await Promise.allSettled([sqs.stop(), dynamo.stop()]);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
