import { type JobCosts, jobCosts } from '../support/costs';
import type { BenchDynamo } from '../support/dynamo';
import { sleep } from '../support/parallel';
import { waitFor } from '../support/pollers';
import { benchRuntime, startRuntimePollers } from '../support/runtime';
import { type IntervalSchedule, seedSchedules } from '../support/schedules';
import type { BenchSqs } from '../support/sqs';
import { type Distribution, distribution } from '../support/stats';

export interface SpreadOptions {
  schedules: number;
  /** The tick period the fire times are spread over (s): AWS ticks once a minute. */
  periodSeconds: number;
  workers: number;
  /** The task's `maxRunningJobs` (null: unlimited). */
  maxRunningJobs: number | null;
  log: (line: string) => void;
}

export interface SpreadResult {
  options: Omit<SpreadOptions, 'log'>;
  executed: number;
  duplicates: number;
  lagsMs: number[];
  lag: Distribution;
  /** Time the first tick took to dispatch every fire (its rounds wait for send phases). */
  tickSeconds: number;
  costs: JobCosts;
}

/**
 * Traffic spread over time, as an AWS deployment sees it: `schedules` hourly schedules whose fire times
 * are spread evenly over one tick period (every sub-second phase), dispatched by one tick a few seconds
 * before the first (the default lookahead of 90 s covers them all), then run by the worker pollers.
 * Reports fire lag, the worker's wait for run times and the cost per job, for a task with or without
 * `maxRunningJobs`.
 */
export async function spreadScenario(
  dynamo: BenchDynamo,
  sqs: BenchSqs,
  options: SpreadOptions,
): Promise<SpreadResult> {
  const lags = new Map<string, number>();
  let duplicates = 0;
  const runtime = await benchRuntime(dynamo, sqs, {
    tasks: {
      spread: {
        ...(options.maxRunningJobs !== null && { maxRunningJobs: options.maxRunningJobs }),
        handler: (_payload, { jobId, fireTime }) => {
          if (lags.has(jobId)) duplicates += 1;
          else lags.set(jobId, Date.now() - (fireTime?.getTime() ?? Number.NaN));
        },
      },
    },
  });
  const periodMs = options.periodSeconds * 1000;
  const firstFire = Math.ceil(Date.now() / 1000) * 1000 + 25_000;
  const schedules: IntervalSchedule[] = Array.from({ length: options.schedules }, (_, n) => ({
    id: `spread-${n}`,
    task: 'spread',
    intervalSeconds: 3_600,
    startAt: firstFire + Math.floor((n * periodMs) / options.schedules),
    coalesce: 'all',
    misfireGraceSeconds: null,
  }));
  await seedSchedules(runtime.seedTarget, schedules);
  const tickAt = firstFire - 5_000;
  if (Date.now() > tickAt) throw new Error('seeding took longer than the 20 s head start');
  await sleep(tickAt - Date.now());
  runtime.meter.reset();
  sqs.resetCounts();

  const pollers = startRuntimePollers(sqs, runtime, options.workers);
  const ticking = performance.now();
  const summary = await runtime.tick();
  const dispatchMs = performance.now() - ticking;
  let tickMs = dispatchMs;
  const limit = options.maxRunningJobs === null ? 'unlimited' : `maxRunningJobs ${options.maxRunningJobs}`;
  options.log(
    `  ${options.schedules} fires spread over ${options.periodSeconds} s (${limit}): one tick dispatched ${summary.jobsEnqueued} in ${(dispatchMs / 1000).toFixed(1)} s`,
  );
  // Then a tick once a period, as in AWS (its fallback wakes a limited task's line after a lost wake-up).
  let stopTicking = false;
  const tickLoop = (async () => {
    let nextTickAt = tickAt + periodMs;
    while (!stopTicking) {
      await sleep(Math.min(1_000, nextTickAt - Date.now()));
      if (stopTicking || Date.now() < nextTickAt) continue;
      nextTickAt += periodMs;
      const started = performance.now();
      await runtime.tick().catch(() => undefined);
      tickMs += performance.now() - started;
    }
  })();
  await waitFor(() => lags.size >= options.schedules, firstFire + periodMs - Date.now() + 120_000);
  stopTicking = true;
  await Promise.all([tickLoop, pollers.stop()]);
  const lagsMs = [...lags.values()];
  const lag = distribution(lagsMs);
  options.log(
    `  ran ${lags.size}/${options.schedules}, ${duplicates} twice; fire lag p50 ${lag.p50} ms, p99 ${lag.p99} ms`,
  );
  return {
    options: {
      schedules: options.schedules,
      periodSeconds: options.periodSeconds,
      workers: options.workers,
      maxRunningJobs: options.maxRunningJobs,
    },
    executed: lags.size,
    duplicates,
    lagsMs,
    lag,
    tickSeconds: dispatchMs / 1000,
    costs: jobCosts({
      jobs: lags.size,
      capacity: runtime.meter.snapshot(),
      sqs: sqs.requests,
      pollers: pollers.stats,
      tickMs,
    }),
  };
}
