import { Command, InvalidArgumentError, Option } from '@commander-js/extra-typings';
import { positiveNumber, wholeNumberFrom } from '../../lib/local/script-flags';

/** Fresh processes per module of the bundles' cold-start run: enough for a median on a busy machine. */
const BUNDLE_REPS = 15;

/** The flags of `npm run bench` (bench/run.ts), with their help. */
export function benchFlags() {
  return new Command('npm run bench --')
    .description(
      'Tick throughput, fire lag and cost per job on DynamoDB Local and fauxqs; writes latest.md and chart.svg.',
    )
    .addOption(
      new Option('--sizes <list>', 'due schedules per tick-throughput run, comma-separated')
        .default([1000, 10_000, 50_000], '1000,10000,50000')
        .argParser(sizeList),
    )
    .addOption(
      new Option(
        '--lag-loads <list>',
        'loads of the fire-lag runs (Sundial, then BullMQ), in whole % of the raw conditional-write ceiling, comma-separated (0 skips them)',
      )
        .default([25, 50, 75], '25,50,75')
        .argParser(loadList),
    )
    .option('--lag-interval <s>', 'their interval in seconds', positiveNumber, 5)
    .option('--lag-seconds <s>', 'how long they fire', positiveNumber, 120)
    .option(
      '--limited-jobs <n>',
      'jobs of 1 s of the limited-task runs (maxRunningJobs 1 and 3; 0 skips them and the critical-job run)',
      wholeNumberFrom(0),
      30,
    )
    .option(
      '--rate-jobs <n>',
      'backlog of the rate-limit run (rateLimit 5 per second; 0 skips it)',
      wholeNumberFrom(0),
      500,
    )
    .option(
      '--spread-schedules <n>',
      'schedules of the spread runs: fires spread over a 60 s tick period, one tick (0 skips them)',
      wholeNumberFrom(0),
      2000,
    )
    .option(
      '--spread-limit <n>',
      'maxRunningJobs of the limited spread run (0 skips it)',
      wholeNumberFrom(0),
      50,
    )
    .option(
      '--send-phase-tolerance <ms>',
      'SUNDIAL_SEND_PHASE_TOLERANCE_MS of every run (0: the tick sends at once, the worker waits up to 1 s)',
      wholeNumberFrom(0, 1000),
      50,
    )
    .option(
      '--herd-schedules <n>',
      "schedules of the herd run, all due at one second (0 skips it; the default is the issue's herd)",
      wholeNumberFrom(0),
      100_000,
    )
    .option(
      '--herd-lead <s>',
      'how long before their fire time the herd is added (the default: the real 15 minutes)',
      wholeNumberFrom(30),
      900,
    )
    .option('--herd-dispatchers <n>', 'dispatchers per tick in the herd run', wholeNumberFrom(1), 4)
    .option('--workers <n>', 'worker pollers', wholeNumberFrom(1), 32)
    .option('--raw-writes <n>', 'writes of the raw-ceiling run', wholeNumberFrom(1), 10_000)
    .option(
      '--bundle-reps <n>',
      "fresh processes per Lambda bundle (and reference module) of the bundles' cold-start run (0 skips it)",
      wholeNumberFrom(0),
      BUNDLE_REPS,
    )
    .addOption(
      new Option('--out <dir>', 'where latest.md and chart.svg go').default('bench/results', 'bench/results'),
    )
    .option(
      '--quick',
      '1000 schedules, one 30 s fire-lag run at 50 % of the ceiling (none with --lag-loads 0), a herd of 1000 added 100 s ahead, 5 processes per bundle: a smoke test in a few minutes',
    );
}

/** The flags of `npm run bench:bundles` (bench/bundles.ts), with their help. */
export function bundlesFlags() {
  return new Command('npm run bench:bundles --')
    .description(
      "Each Lambda's bundle as `cdk synth` builds it: its size, its import time in fresh Node processes and the worker's first invocations.",
    )
    .option('--reps <n>', 'fresh processes per module', wholeNumberFrom(1), BUNDLE_REPS)
    .option(
      '--baseline <dir>',
      "a cdk.out inside the project (another build's synth) whose bundles are timed in the same rounds",
    )
    .addOption(new Option('--out <dir>', 'where bundles.md goes').default('bench/results', 'bench/results'));
}

/** The flags of `npm run bench:limited` (bench/limited.ts), with their help. */
export function limitedFlags() {
  return new Command('npm run bench:limited --')
    .description(
      'The limited-task scenarios on DynamoDB Local and fauxqs: waiting lines, priority, rate limits.',
    )
    .option(
      '--rate-jobs <n>',
      'backlog of the rate-limit run (rateLimit 5 per second: 500 take about 100 s; 0 skips it)',
      wholeNumberFrom(0),
      500,
    );
}

/** The flags of `npm run soak` (bench/soak.ts), with their help. */
export function soakFlags() {
  return new Command('npm run soak --')
    .description(
      'Second-level schedules under injected faults on DynamoDB Local and fauxqs, then checks; exits 1 on a violation.',
    )
    .option('--minutes <n>', 'how long the schedules fire', positiveNumber, 5)
    .option('--schedules <n>', 'how many', wholeNumberFrom(1), 2000)
    .option('--workers <n>', 'worker pollers', wholeNumberFrom(1), 16)
    .option(
      '--drain-seconds <n>',
      'the longest recovery may take after the window (it ends sooner once nothing has started for a minute, or two tick periods and 30 s)',
      wholeNumberFrom(0),
      900,
    )
    .option(
      '--tick-seconds <s>',
      "the ticks' period: 1 as `npm start` runs them, 60 as AWS does (the waiting line's repairs wait for a tick)",
      positiveNumber,
      1,
    )
    .option('--ci', 'about a minute: 200 schedules firing every 1–5 s for 30 s, the same faults and checks');
}

/** `75,25` → `[25, 75]` (ascending, each once); `0` → `[]` (no fire-lag runs). */
function loadList(text: string): number[] {
  if (text.trim() === '0') return [];
  const loads = text.split(',').map((load) => (/^\d+$/.test(load.trim()) ? Number(load) : 0));
  if (loads.some((load) => load < 1 || load > 100)) {
    throw new InvalidArgumentError(
      'Expected whole percents from 1 to 100, separated by commas (or 0 to skip the fire-lag runs).',
    );
  }
  return [...new Set(loads)].sort((a, b) => a - b);
}

/** `1000,10000` → `[1000, 10000]`. */
function sizeList(text: string): number[] {
  const sizes = text.split(',').map((size) => (/^\d+$/.test(size.trim()) ? Number(size) : 0));
  if (sizes.some((size) => size <= 0)) {
    throw new InvalidArgumentError('Expected whole numbers above 0, separated by commas.');
  }
  return sizes;
}
