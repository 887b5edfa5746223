import { type JobCosts, jobCosts } from '../support/costs';
import type { BenchDynamo } from '../support/dynamo';
import { startPollers, waitFor } from '../support/pollers';
import { benchRuntime } from '../support/runtime';
import { type IntervalSchedule, seedSchedules } from '../support/schedules';
import { type BenchSqs, queueDepth } from '../support/sqs';

export interface DispatchResult {
  size: number;
  /** Tick invocations it took to dispatch every due schedule (each stops after its 40 s budget). */
  ticks: number;
  tickSeconds: number;
  schedulesPerSecond: number;
  jobsEnqueued: number;
  executed: number;
  drainSeconds: number;
  costs: JobCosts;
}

/**
 * `size` schedules, each due once (an hourly interval whose first fire is a minute ahead), each on its
 * chain's note (ADR 0008): the tick handler runs until every one is dispatched (timed: tick throughput),
 * then worker pollers run every job (cost per job, tick and workers together): the cost of an hourly
 * schedule's every fire.
 */
export async function dispatchScenario(
  dynamo: BenchDynamo,
  sqs: BenchSqs,
  options: { size: number; workers: number; log: (line: string) => void },
): Promise<DispatchResult> {
  const { size, log } = options;
  let executed = 0;
  const runtime = await benchRuntime(dynamo, sqs, {
    tasks: { bench: { handler: () => void executed++ } },
  });
  const startAt = Date.now() + 60_000;
  const schedules: IntervalSchedule[] = Array.from({ length: size }, (_, n) => ({
    id: `s-${n}`,
    task: 'bench',
    intervalSeconds: 3_600,
    startAt,
    coalesce: 'latest',
    misfireGraceSeconds: null,
  }));
  const seeding = performance.now();
  await seedSchedules(runtime.seedTarget, schedules);
  log(`  seeded ${size} schedules in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);

  runtime.meter.reset();
  sqs.resetCounts();
  let processed = 0;
  let jobsEnqueued = 0;
  let ticks = 0;
  const ticking = performance.now();
  // Each schedule has one fire to send: a schedule read from its note is counted by its job.
  while (processed < size && ticks < 50) {
    const summary = await runtime.tick();
    ticks += 1;
    processed += summary.jobsEnqueued;
    jobsEnqueued += summary.jobsEnqueued;
    if (summary.jobsEnqueued === 0)
      throw new Error(`tick ${ticks} dispatched nothing (${processed}/${size})`);
  }
  const tickMs = performance.now() - ticking;
  log(`  dispatched ${processed} schedules in ${ticks} tick(s), ${(tickMs / 1000).toFixed(1)} s`);

  const draining = performance.now();
  const pollers = startPollers({
    client: sqs.client,
    queueUrl: runtime.queue.queueUrl,
    queueArn: runtime.queue.queueArn,
    count: options.workers,
    handler: runtime.worker,
  });
  const drained = await waitFor(
    async () =>
      executed >= jobsEnqueued && (await queueDepth(sqs.client, runtime.queue.queueUrl)).total === 0,
    30 * 60_000,
  );
  await pollers.stop();
  const drainSeconds = (performance.now() - draining) / 1000;
  if (!drained) throw new Error(`drain did not finish: ${executed}/${jobsEnqueued} jobs ran`);
  log(`  ran ${executed} jobs in ${drainSeconds.toFixed(1)} s`);
  return {
    size,
    ticks,
    tickSeconds: tickMs / 1000,
    schedulesPerSecond: processed / (tickMs / 1000),
    jobsEnqueued,
    executed,
    drainSeconds,
    costs: jobCosts({
      jobs: executed,
      capacity: runtime.meter.snapshot(),
      sqs: sqs.requests,
      pollers: pollers.stats,
      tickMs,
    }),
  };
}
