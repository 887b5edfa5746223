/**
 * `npm run bench`: tick throughput (1k, 10k, 50k due schedules) next to the raw conditional-write
 * ceiling, fire lag against the store's load (Sundial and BullMQ at shares of that ceiling), per-job
 * capacity/requests and cost per million jobs, and the Lambda bundles' sizes and cold starts. Starts
 * its own DynamoDB Local and SQS emulator; writes bench/results/latest.md and bench/results/chart.svg.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join, relative } from 'node:path';
import { parseScriptFlags } from '../lib/local/script-flags';
import { bundlesMarkdown } from './report/bundles-section';
import { renderChart } from './report/chart';
import { type BenchReport, renderMarkdown } from './report/markdown';
import { bullmqFireLagScenario } from './scenarios/bullmq-fire-lag';
import { bundlesScenario } from './scenarios/bundles';
import { dispatchScenario } from './scenarios/dispatch';
import { fireLagScenario, idleWriteUnitsPerSecond } from './scenarios/fire-lag';
import { herdMarkdown, herdScenario } from './scenarios/herd';
import { criticalJobScenario, limitedTaskScenario, TICK_PERIODS } from './scenarios/limited-task';
import { rateLimitScenario } from './scenarios/rate-limited-task';
import { spreadRuns } from './scenarios/spread-runs';
import { rawConditionalWrites, startBenchDynamo } from './support/dynamo';
import { benchFlags } from './support/flags';
import {
  FIRST_GUESS_WRU_PER_JOB,
  type LagWrites,
  lagWritesOf,
  schedulesForLoad,
  storeUse,
} from './support/load-curve';
import { benchEnvironment } from './support/runtime';
import { startBenchSqs } from './support/sqs';

const flags = parseScriptFlags(benchFlags());
const RAW_CONCURRENCY = 32;
/** How long the platform runs idle to measure what it writes with no schedule. */
const IDLE_SECONDS = 15;
/** How long the calibration run of the fire-lag scenario fires (as long as a `--quick` run's). */
const CALIBRATION_SECONDS = 30;

async function main(): Promise<void> {
  const startedAt = new Date();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const sizes = flags.quick ? [1000] : flags.sizes;
  const environment = [
    `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, Node ${process.version}, DynamoDB Local 1.25.1 (in-memory), fauxqs 1.9.2 (in a process of its own) — client and emulators share the cores`,
    'the runtime as deployed: every schedule on its note chain (ADR 0008), 8 dispatchers over 16 due shards',
    `load average when the run started: ${loadavg()
      .map((value) => value.toFixed(2))
      .join(', ')} (other engineers' work on the same machine)`,
  ];
  benchEnvironment.SUNDIAL_SEND_PHASE_TOLERANCE_MS = String(flags.sendPhaseTolerance);
  const [dynamo, sqs] = await Promise.all([startBenchDynamo(), startBenchSqs()]);
  try {
    const bundleReps = flags.quick ? Math.min(5, flags.bundleReps) : flags.bundleReps;
    const bundles =
      bundleReps > 0 ? bundlesMarkdown(await bundlesScenario(dynamo, sqs, { reps: bundleReps, log })) : '';
    log('raw conditional-write ceiling…');
    await rawConditionalWrites(dynamo, 2_000, RAW_CONCURRENCY); // warms the JVM up: not measured
    const raw = await rawConditionalWrites(dynamo, flags.rawWrites, RAW_CONCURRENCY);
    log(`  ${raw.toFixed(0)} writes/s`);
    const report: BenchReport = {
      startedAt,
      seconds: 0,
      environment,
      raw: {
        writesPerSecond: raw,
        writes: flags.rawWrites,
        concurrency: RAW_CONCURRENCY,
      },
      dispatch: [],
      fireLag: [],
    };
    log('warming DynamoDB Local up (query, BatchGet and index paths; not measured)…');
    await dispatchScenario(dynamo, sqs, { size: 500, workers: flags.workers, log: () => {} });
    for (const size of sizes) {
      log(`tick throughput and cost, ${size} due schedules…`);
      report.dispatch.push(await dispatchScenario(dynamo, sqs, { size, workers: flags.workers, log }));
    }
    await runFireLagCurve(dynamo, sqs, report, log);
    report.spread = await spreadRuns(dynamo, sqs, { ...flags, log });
    if (flags.limitedJobs > 0) {
      log('limited task under a backlog…');
      const runs = [];
      for (const tickSeconds of TICK_PERIODS) {
        for (const maxRunningJobs of [1, 3]) {
          runs.push(
            await limitedTaskScenario(dynamo, sqs, {
              jobs: flags.limitedJobs,
              runMs: 1_000,
              maxRunningJobs,
              workers: flags.workers,
              tickSeconds,
              log,
            }),
          );
        }
      }
      const critical = await criticalJobScenario(dynamo, sqs, {
        waitingNormal: 100,
        runMs: 200,
        workers: flags.workers,
        log,
      });
      report.limited = { runs, critical };
    }
    if (flags.rateJobs > 0) {
      log('rate-limited task under a backlog…');
      report.rateLimited = await rateLimitScenario(dynamo, sqs, {
        jobs: flags.quick ? 50 : flags.rateJobs,
        max: 5,
        perSeconds: 1,
        runMs: 50,
        workers: flags.workers,
        log,
      });
    }
    const herd = await runHerd(dynamo, sqs, report.raw, log);
    report.seconds = (Date.now() - startedAt.getTime()) / 1000;
    await mkdir(flags.out, { recursive: true });
    const chartPath = join(flags.out, 'chart.svg');
    await writeFile(chartPath, renderChart(report));
    const markdownPath = join(flags.out, 'latest.md');
    const markdown = `${renderMarkdown(report, 'chart.svg')}${herd}${bundles && `\n${bundles}`}`;
    await writeFile(markdownPath, markdown);
    log(`wrote ${relative(process.cwd(), markdownPath)} and ${relative(process.cwd(), chartPath)}`);
    process.stdout.write(markdown);
  } finally {
    await Promise.allSettled([sqs.stop(), dynamo.stop()]);
  }
}

/**
 * The fire-lag curve: at each load (a share of the raw ceiling, sized from what the platform writes
 * idle and a calibration run of the same scenario), Sundial's fire-lag run, then BullMQ's on the same
 * workload; nothing with `--lag-loads 0`.
 */
async function runFireLagCurve(
  dynamo: Awaited<ReturnType<typeof startBenchDynamo>>,
  sqs: Awaited<ReturnType<typeof startBenchSqs>>,
  report: BenchReport,
  log: (line: string) => void,
): Promise<void> {
  const loads = flags.quick && flags.lagLoads.length > 0 ? [50] : flags.lagLoads;
  if (loads.length === 0) return;
  const durationSeconds = flags.quick ? 30 : flags.lagSeconds;
  const intervalSeconds = flags.lagInterval;
  const rawWritesPerSecond = report.raw.writesPerSecond;
  const writes = await calibrateLagWrites(dynamo, sqs, Math.min(...loads), rawWritesPerSecond, log);
  for (const loadPercent of loads) {
    log(`fire lag at ${loadPercent} % of the ceiling…`);
    const { schedules, run: sundial } = await sizedLagRun(dynamo, sqs, {
      loadPercent,
      rawWritesPerSecond,
      durationSeconds,
      writes,
      log,
    });
    const use = storeUse(sundial, rawWritesPerSecond);
    log(
      `  store use ${(use * 100).toFixed(0)} % of the ceiling (${(sundial.meteredWriteUnits / durationSeconds).toFixed(0)} WRU/s metered)`,
    );
    log(`fire lag at ${loadPercent} %, BullMQ job schedulers (where redis-server is installed)…`);
    const bullmq = await bullmqFireLagScenario({
      schedules,
      intervalSeconds,
      durationSeconds,
      concurrency: flags.workers,
      log,
    });
    if (bullmq.status === 'skipped') log(`  skipped: ${bullmq.reason}`);
    report.fireLag.push({ loadPercent, schedules, writes, storeUse: use, sundial, bullmq });
  }
}

/**
 * What the fire-lag runs write (`LagWrites`): the platform idle for `IDLE_SECONDS`, then a short run of
 * the scenario at the lowest load, sized with a first guess of the WRU per job.
 */
async function calibrateLagWrites(
  dynamo: Awaited<ReturnType<typeof startBenchDynamo>>,
  sqs: Awaited<ReturnType<typeof startBenchSqs>>,
  loadPercent: number,
  rawWritesPerSecond: number,
  log: (line: string) => void,
): Promise<LagWrites> {
  log('calibrating the fire-lag runs: the platform idle, then a short run…');
  const idlePerSecond = await idleWriteUnitsPerSecond(dynamo, sqs, { seconds: IDLE_SECONDS, tickSeconds: 1 });
  const guess = { idlePerSecond, perFire: FIRST_GUESS_WRU_PER_JOB, perScheduleEnd: 0 };
  const { run } = await sizedLagRun(dynamo, sqs, {
    loadPercent,
    rawWritesPerSecond,
    durationSeconds: CALIBRATION_SECONDS,
    writes: guess,
    log,
  });
  const writes = lagWritesOf(run, idlePerSecond);
  log(
    `  ${idlePerSecond.toFixed(1)} WRU/s idle, ${writes.perFire.toFixed(2)} WRU per fire, ${writes.perScheduleEnd.toFixed(2)} WRU per schedule's removal`,
  );
  return writes;
}

/** Sundial's fire-lag run at `loadPercent` of the ceiling, sized with `writes` (`schedulesForLoad`). */
async function sizedLagRun(
  dynamo: Awaited<ReturnType<typeof startBenchDynamo>>,
  sqs: Awaited<ReturnType<typeof startBenchSqs>>,
  options: {
    loadPercent: number;
    rawWritesPerSecond: number;
    durationSeconds: number;
    writes: LagWrites;
    log: (line: string) => void;
  },
) {
  const intervalSeconds = flags.lagInterval;
  const { durationSeconds, log } = options;
  const schedules = schedulesForLoad({ ...options, intervalSeconds });
  const run = await fireLagScenario(dynamo, sqs, {
    schedules,
    intervalSeconds,
    durationSeconds,
    workers: flags.workers,
    tickSeconds: 1,
    log,
  });
  return { schedules, run };
}

/** The herd run (ADR 0006) and its section of the report; nothing with `--herd-schedules 0`. */
async function runHerd(
  dynamo: Awaited<ReturnType<typeof startBenchDynamo>>,
  sqs: Awaited<ReturnType<typeof startBenchSqs>>,
  raw: BenchReport['raw'],
  log: (line: string) => void,
): Promise<string> {
  const schedules = flags.quick ? Math.min(1_000, flags.herdSchedules) : flags.herdSchedules;
  if (schedules === 0) return '';
  log('herd…');
  const result = await herdScenario(dynamo, sqs, {
    schedules,
    leadSeconds: flags.quick ? 100 : flags.herdLead,
    dispatchers: flags.herdDispatchers,
    shards: 16,
    workers: flags.workers,
    rawWritesPerSecond: raw.writesPerSecond,
    log,
  });
  return herdMarkdown(result);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
