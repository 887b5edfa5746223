import { type ChildProcess, fork } from 'node:child_process';
import { Command } from '@commander-js/extra-typings';
import { parseScriptFlags, wholeNumberFrom } from '../lib/local/script-flags';
import { BudgetProgress, type SeedDone, type SeedFailed } from './budget-progress';
import { DEFAULT_RUN, type RunShape, runOptionsOf } from './profile';
import { type RunResult, simulate } from './run';
import { shrink } from './shrink';

const flags = parseScriptFlags(
  new Command('npm run simulate --')
    .description(
      'The deterministic simulation: the real tick, dispatchers, workers and admin API over the memory store, on a simulated clock, under faults; checks the promises at every handler start, every simulated second (the waiting lines) and at the end.',
    )
    .option('--seed <n>', 'replay this seed alone (with the shape it failed with)', wholeNumberFrom(0))
    .option('--first-seed <n>', 'the first seed of a budget run', wholeNumberFrom(0), 1)
    .option('--fires <n>', 'run seeds until this many fires were simulated', wholeNumberFrom(1), 100_000)
    .option(
      '--seconds <n>',
      'a time budget: no seed starts after this many seconds, whatever fires were reached',
      wholeNumberFrom(1),
    )
    .option('--processes <n>', 'processes that run seeds side by side', wholeNumberFrom(1, 64), 2)
    .option('--steady <n>', 'steady schedules of a run', wholeNumberFrom(0), DEFAULT_RUN.steadySchedules)
    .option('--churned <n>', 'schedules the chaos changes', wholeNumberFrom(1), DEFAULT_RUN.churnedSchedules)
    .option('--minutes <n>', 'simulated minutes of faults and chaos', wholeNumberFrom(1), DEFAULT_RUN.minutes)
    .option(
      '--follow <text>',
      'with --seed: print every step whose line holds this text (a job or schedule id)',
    )
    .option('--no-shrink', 'report a failing seed as found, without looking for a smaller run that fails')
    .option('--child <spec>', 'internal: the seeds this process runs'),
);

const shape: RunShape = {
  steadySchedules: flags.steady,
  churnedSchedules: flags.churned,
  minutes: flags.minutes,
};

if (flags.child !== undefined) {
  await runChild(flags.child);
} else if (flags.seed !== undefined) {
  const result = await simulate({ ...runOptionsOf(flags.seed, shape), follow: flags.follow });
  printRun(result);
  if (flags.follow !== undefined) for (const line of result.followed) console.log(`  ${line}`);
  if (result.violations.length > 0) {
    printFailure(result, shape);
    process.exitCode = 1;
  }
} else {
  await runBudget();
}

/**
 * The budget run: processes take seeds `first + k·processes + i` until the fires add up, or until the
 * time budget (`--seconds`) is spent: a seed that started still runs to its end. At the first
 * violation every process stops after the failing seed (the lowest, should two fail), so the seeds
 * before it all ran: the report says how far into the budget it was found, the same on every run.
 */
async function runBudget(): Promise<void> {
  const startedAt = performance.now();
  const perProcess = Math.ceil(flags.fires / flags.processes);
  const progress = new BudgetProgress();
  const startBefore = flags.seconds === undefined ? undefined : Date.now() + flags.seconds * 1000;
  const children = Array.from({ length: flags.processes }, (_, index) =>
    forkChild({ first: flags.firstSeed + index, step: flags.processes, fires: perProcess, startBefore }),
  );
  const outcomes = await Promise.all(
    children.map((child) =>
      outcomeOf(child, (message) => {
        if (message.kind === 'seed') progress.seedDone(message);
        if (message.kind !== 'failed' || !progress.seedFailed(message)) return;
        // A process that already ended (the failing one, often) refuses the write: it has nothing to stop
        for (const other of children) if (other.connected) other.send({ stopAfter: message.seed }, () => {});
      }),
    ),
  );
  const seconds = (performance.now() - startedAt) / 1000;
  const total = outcomes.reduce(
    (sum, outcome) => ({
      seeds: sum.seeds + outcome.seeds,
      fires: sum.fires + outcome.fires,
      jobs: sum.jobs + outcome.jobs,
      starts: sum.starts + outcome.starts,
      steps: sum.steps + outcome.steps,
      crashes: sum.crashes + outcome.crashes,
      simulatedMs: sum.simulatedMs + outcome.simulatedMs,
      longestFreeSlotMs: Math.max(sum.longestFreeSlotMs, outcome.longestFreeSlotMs),
    }),
    { seeds: 0, fires: 0, jobs: 0, starts: 0, steps: 0, crashes: 0, simulatedMs: 0, longestFreeSlotMs: 0 },
  );
  console.log(
    `simulation: ${total.seeds} seeds, ${total.fires} fires (${total.jobs} jobs, ${total.starts} handler starts), ${total.steps} steps, ${total.crashes} crashes, longest free-slot wait ${total.longestFreeSlotMs} ms, ${(total.simulatedMs / 3_600_000).toFixed(1)} simulated hours in ${seconds.toFixed(1)} s (${Math.round(total.fires / seconds)} fires/s)`,
  );
  const { failure } = progress;
  if (!failure && total.fires < flags.fires) {
    console.log(
      `the time budget (--seconds ${flags.seconds}) ended the run at ${total.fires} of ${flags.fires} fires: the seeds above all ran to their end`,
    );
  }
  if (failure) {
    const before = progress.before(failure.seed);
    console.log(
      `FAILED: seed ${failure.seed}, first violation at +${failure.atMs} ms of its simulated time (step ${failure.step}), after ${before.seeds} seeds with ${before.fires} fires and ${(before.simulatedMs / 3_600_000).toFixed(1)} simulated hours before it, and ${failure.fires} fires of its own; replay: npm run simulate -- --seed ${failure.seed}`,
    );
    process.exitCode = 1;
  }
}

interface ChildOutcome {
  seeds: number;
  fires: number;
  jobs: number;
  starts: number;
  steps: number;
  crashes: number;
  simulatedMs: number;
  longestFreeSlotMs: number;
  failedSeed?: number;
}

type ChildMessage = SeedDone | SeedFailed | ({ kind: 'outcome' } & ChildOutcome);

/** The seeds a process runs: `first`, `first + step`, … until `fires`, none started after `startBefore` (epoch ms). */
interface ChildSpec {
  first: number;
  step: number;
  fires: number;
  startBefore?: number;
}

function forkChild(spec: ChildSpec): ChildProcess {
  return fork(process.argv[1] as string, [
    '--child',
    JSON.stringify(spec),
    '--steady',
    String(shape.steadySchedules),
    '--churned',
    String(shape.churnedSchedules),
    '--minutes',
    String(shape.minutes),
    ...(flags.shrink ? [] : ['--no-shrink']),
  ]);
}

function outcomeOf(child: ChildProcess, onProgress: (message: ChildMessage) => void): Promise<ChildOutcome> {
  return new Promise((resolve, reject) => {
    let outcome: ChildOutcome | undefined;
    child.on('message', (message: ChildMessage) => {
      if (message.kind === 'outcome') outcome = message;
      else onProgress(message);
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (outcome) resolve(outcome);
      else reject(new Error(`a simulation process ended with code ${code} before reporting`));
    });
  });
}

async function runChild(specText: string): Promise<void> {
  const spec = JSON.parse(specText) as ChildSpec;
  const inTime = () => spec.startBefore === undefined || Date.now() < spec.startBefore;
  let stopAfter = Number.POSITIVE_INFINITY;
  process.on('message', (message: { stopAfter: number }) => {
    stopAfter = Math.min(stopAfter, message.stopAfter);
  });
  // Listening keeps the channel open: the process still ends when its seeds are done.
  process.channel?.unref();
  const outcome: ChildOutcome = {
    seeds: 0,
    fires: 0,
    jobs: 0,
    starts: 0,
    steps: 0,
    crashes: 0,
    simulatedMs: 0,
    longestFreeSlotMs: 0,
  };
  for (
    let seed = spec.first;
    outcome.fires < spec.fires && seed <= stopAfter && inTime();
    seed += spec.step
  ) {
    const result = await simulate(runOptionsOf(seed, shape));
    outcome.seeds += 1;
    outcome.fires += result.fires;
    outcome.jobs += result.jobs;
    outcome.starts += result.handlerStarts;
    outcome.steps += result.steps;
    outcome.crashes += result.crashes;
    outcome.simulatedMs += result.simulatedMs;
    outcome.longestFreeSlotMs = Math.max(outcome.longestFreeSlotMs, result.longestFreeSlotMs);
    await send({ kind: 'seed', seed, fires: result.fires, simulatedMs: result.simulatedMs });
    if (result.firstViolation) {
      await send({ kind: 'failed', seed, ...result.firstViolation, fires: result.fires });
      printRun(result);
      const smallest = flags.shrink ? await shrink(seed, shape, result) : { result, shape };
      printFailure(smallest.result, smallest.shape);
      outcome.failedSeed = seed;
      break;
    }
  }
  // The channel is unref'd: wait until the outcome is written, or the process may end before it is
  await send({ kind: 'outcome', ...outcome });
}

/** Sends `message` to the budget's process; resolves once it is written to the channel. */
function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) resolve();
    else process.send(message, undefined, {}, () => resolve());
  });
}

function printRun(result: RunResult): void {
  console.log(
    `seed ${result.seed}: ${result.fires} fires, ${result.jobs} jobs, ${result.handlerStarts} handler starts, ${result.steps} steps, ${result.crashes} crashes, ${result.adminCalls} admin calls, longest free-slot wait ${result.longestFreeSlotMs} ms, ${(result.simulatedMs / 60_000).toFixed(0)} simulated minutes; ${result.violations.length === 0 ? 'ok' : `${result.violations.length} violation(s)`}`,
  );
}

function printFailure(result: RunResult, failing: RunShape): void {
  console.log(`\nVIOLATIONS (seed ${result.seed}):`);
  for (const violation of result.violations.slice(0, 10)) console.log(`  ${violation}`);
  console.log(`\nthe last ${result.trace.length} steps (step +ms process operation):`);
  for (const line of result.trace) console.log(`  ${line}`);
  console.log(
    `\nreplay: npm run simulate -- --seed ${result.seed} --steady ${failing.steadySchedules} --churned ${failing.churnedSchedules} --minutes ${failing.minutes}`,
  );
}
