import { type JobCosts, jobCosts, withRemovalsFrom } from '../support/costs';
import type { BenchDynamo } from '../support/dynamo';
import { sleep } from '../support/parallel';
import { startPollers, waitFor } from '../support/pollers';
import { type BenchRuntime, benchRuntime } from '../support/runtime';
import {
  fireTimesBetween,
  type IntervalSchedule,
  intervalTrigger,
  seedSchedules,
} from '../support/schedules';
import type { BenchSqs } from '../support/sqs';
import {
  type Distribution,
  distribution,
  type SteadyWindow,
  steadyLag,
  type TimedLag,
} from '../support/stats';

export interface FireLagOptions {
  schedules: number;
  intervalSeconds: number;
  durationSeconds: number;
  workers: number;
  tickSeconds: number;
  log: (line: string) => void;
}

export interface FireLagResult {
  options: Omit<FireLagOptions, 'log'>;
  expected: number;
  executed: number;
  duplicates: number;
  lagsMs: number[];
  lag: Distribution;
  /** The fires of the steady load (see `SteadyWindow`), and their lags. */
  steady: SteadyWindow & { lag: Distribution };
  /** Every job's lag with its fire time (for the same window in a side-by-side run). */
  timedLags: TimedLag[];
  /** Every write unit of the run: from the end of seeding to its last job, and its schedules' removals. */
  meteredWriteUnits: number;
  costs: JobCosts;
}

/**
 * Steady load, as the local platform runs it: schedules firing every few seconds (start times spread
 * over the interval), a tick every `tickSeconds`, and worker pollers. Fire lag = handler start − fire time.
 */
export async function fireLagScenario(
  dynamo: BenchDynamo,
  sqs: BenchSqs,
  options: FireLagOptions,
): Promise<FireLagResult> {
  const { log } = options;
  const lags = new Map<string, TimedLag>();
  let duplicates = 0;
  let firstFire = 0;
  const runtime = await benchRuntime(dynamo, sqs, {
    tasks: {
      lag: {
        handler: (_payload, { jobId, fireTime }) => {
          const fire = fireTime?.getTime() ?? Number.NaN;
          if (lags.has(jobId)) duplicates += 1;
          else lags.set(jobId, { offsetMs: fire - firstFire, lagMs: Date.now() - fire });
        },
      },
    },
  });
  firstFire = Math.ceil(Date.now() / 1000) * 1000 + 20_000;
  const endAt = firstFire + options.durationSeconds * 1000 - 1;
  const periodMs = options.intervalSeconds * 1000;
  const schedules: IntervalSchedule[] = Array.from({ length: options.schedules }, (_, n) => ({
    id: `lag-${n}`,
    task: 'lag',
    intervalSeconds: options.intervalSeconds,
    startAt: firstFire + Math.floor((n * periodMs) / options.schedules),
    endAt,
    coalesce: 'all',
    misfireGraceSeconds: null,
  }));
  const expected = schedules.reduce(
    (sum, schedule) => sum + fireTimesBetween(intervalTrigger(schedule), schedule.startAt, endAt).length,
    0,
  );
  await seedSchedules(runtime.seedTarget, schedules);
  if (Date.now() > firstFire - 5_000) throw new Error('seeding took longer than the 20 s head start');
  runtime.meter.reset();
  sqs.resetCounts();
  log(
    `  ${options.schedules} schedules every ${options.intervalSeconds} s for ${options.durationSeconds} s: ${expected} jobs`,
  );

  let stopTicking = false;
  let tickMs = 0;
  let firstTickEndedAt: number | undefined;
  const tickLoop = (async () => {
    while (!stopTicking) {
      const started = performance.now();
      await runtime.tick();
      firstTickEndedAt ??= Date.now();
      const took = performance.now() - started;
      tickMs += took;
      await sleep(Math.max(0, options.tickSeconds * 1000 - took));
    }
  })();
  const pollers = startPollers({
    client: sqs.client,
    queueUrl: runtime.queue.queueUrl,
    queueArn: runtime.queue.queueArn,
    count: options.workers,
    handler: runtime.worker,
  });
  await waitFor(() => lags.size >= expected, endAt - Date.now() + 60_000);
  await pollers.stop();
  const atLastJob = runtime.meter.snapshot();
  const tickMsAtLastJob = tickMs;
  // The schedules' closing notes remove them a minute or more after their last fires (ADR 0011): the
  // ticks go on until they have, and the run's writes take those removals from that time; the rest of
  // it is the idle platform's (shard leases, cursors), which the fires' window already holds its share of.
  const removed = await allRemoved(runtime.store, 'lag', REMOVALS_WAIT_MS);
  if (!removed) log(`  not every finished schedule was removed within ${REMOVALS_WAIT_MS / 1000} s`);
  stopTicking = true;
  await tickLoop;
  const capacity = withRemovalsFrom(atLastJob, runtime.meter.snapshot());
  const timedLags = [...lags.values()];
  const lagsMs = timedLags.map((lag) => lag.lagMs);
  // Steady: one interval after the first tick, to one interval before the end (each schedule's last
  // fire, which finishes its schedule).
  const window: SteadyWindow = {
    fromMs: Math.max(0, (firstTickEndedAt ?? firstFire) - firstFire) + periodMs,
    toMs: options.durationSeconds * 1000 - periodMs,
  };
  const steady = { ...window, lag: steadyLag(timedLags, window) };
  log(
    `  ran ${lags.size}/${expected} jobs, ${duplicates} twice; steady (fires +${window.fromMs / 1000}…+${window.toMs / 1000} s) p99 ${steady.lag.p99} ms`,
  );
  return {
    options: {
      schedules: options.schedules,
      intervalSeconds: options.intervalSeconds,
      durationSeconds: options.durationSeconds,
      workers: options.workers,
      tickSeconds: options.tickSeconds,
    },
    expected,
    executed: lags.size,
    duplicates,
    lagsMs,
    lag: distribution(lagsMs),
    steady,
    timedLags,
    meteredWriteUnits: capacity.total.writeUnits,
    costs: jobCosts({
      jobs: lags.size,
      capacity,
      sqs: sqs.requests,
      pollers: pollers.stats,
      tickMs: tickMsAtLastJob,
    }),
  };
}

/** The longest a run waits, after its last job, for the closing notes to remove its schedules. */
const REMOVALS_WAIT_MS = 5 * 60_000;

/** Waits (checking every few seconds) until no schedule of `task` is left; false after `maxMs`. */
async function allRemoved(store: BenchRuntime['store'], task: string, maxMs: number): Promise<boolean> {
  const until = Date.now() + maxMs;
  for (;;) {
    const left = await store.listSchedules({ task }, { limit: 1 });
    if (left.items.length === 0) return true;
    if (Date.now() >= until) return false;
    await sleep(5_000);
  }
}

/**
 * The write units per second the platform spends with no schedule at all, ticking every `tickSeconds`
 * for `seconds` (its shards' leases and cursors, its repairs): the part of a fire-lag run's store use
 * that does not grow with its schedules, which the curve's sizing leaves out of each load's share.
 */
export async function idleWriteUnitsPerSecond(
  dynamo: BenchDynamo,
  sqs: BenchSqs,
  options: { seconds: number; tickSeconds: number },
): Promise<number> {
  const runtime = await benchRuntime(dynamo, sqs, { tasks: {} });
  runtime.meter.reset();
  const startedAt = performance.now();
  const endsAt = startedAt + options.seconds * 1000;
  while (performance.now() < endsAt) {
    const tickStarted = performance.now();
    await runtime.tick();
    await sleep(Math.max(0, options.tickSeconds * 1000 - (performance.now() - tickStarted)));
  }
  const seconds = (performance.now() - startedAt) / 1000;
  return runtime.meter.snapshot().total.writeUnits / seconds;
}
