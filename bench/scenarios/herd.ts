import type { JobQueue } from '../../lib/core/ports/job-queue';
import type { CapacityTotals } from '../support/capacity-meter';
import type { BenchDynamo } from '../support/dynamo';
import { sleep } from '../support/parallel';
import { startPollers, waitFor } from '../support/pollers';
import { benchRuntime } from '../support/runtime';
import { type IntervalSchedule, seedSchedules } from '../support/schedules';
import type { BenchSqs } from '../support/sqs';
import { type Distribution, distribution } from '../support/stats';

export interface HerdOptions {
  /** Schedules, all due at the same second. */
  schedules: number;
  /** How long before that second they are added (900: the real 15 minutes; less for short runs). */
  leadSeconds: number;
  /** Dispatchers each tick hands the due index's shards to (in this process). */
  dispatchers: number;
  shards: number;
  workers: number;
  /** The raw conditional-write ceiling measured in the same run (writes/s). */
  rawWritesPerSecond: number;
  log: (line: string) => void;
}

export interface HerdResult {
  options: Omit<HerdOptions, 'log' | 'rawWritesPerSecond'>;
  seedSeconds: number;
  /** From the first tick to the last message of the herd in the queue. */
  dispatchSeconds: number;
  schedulesPerSecond: number;
  rawWritesPerSecond: number;
  /** Fires whose message was in the queue before their fire time. */
  sentBeforeFireTime: number;
  /** Fire time − the moment its message was sent (ms): how early the herd was queued. */
  sentAhead: Distribution;
  executed: number;
  duplicates: number;
  /** Handler start − fire time (ms). */
  lag: Distribution;
  /** Per dispatched schedule, the tick's and dispatchers' work only (before any job ran). */
  perSchedule: { wru: number; indexWru: number; failedWru: number; rru: number; sqsSends: number };
  /** Due-index shard leases taken (one conditional write each). */
  shardLeases: number;
}

/**
 * A herd: `schedules` daily schedules all due at the same second, added `leadSeconds` ahead, with the
 * tick every second (fanning out to `dispatchers`, isolated fires sent up to 900 s early, ADR 0006) and
 * worker pollers. Measures whether every fire was queued before its fire time, how early, the dispatch
 * throughput against the raw conditional-write ceiling, and the fire lag once the herd is due.
 */
export async function herdScenario(
  dynamo: BenchDynamo,
  sqs: BenchSqs,
  options: HerdOptions,
): Promise<HerdResult> {
  const { log } = options;
  const starts = new Map<string, number>();
  let duplicates = 0;
  const runtime = await benchRuntime(dynamo, sqs, {
    env: {
      SUNDIAL_DISPATCHERS: String(options.dispatchers),
      SUNDIAL_SHARDS: String(options.shards),
      SUNDIAL_EARLY_SEND_SECONDS: '900',
      // The local platform's 1 s tick: a tick's dispatchers then run until the herd is sent.
      SUNDIAL_TICK_BUDGET_MS: '40000',
    },
    tasks: {
      herd: {
        handler: (_payload, { jobId, fireTime }) => {
          if (starts.has(jobId)) duplicates += 1;
          else starts.set(jobId, Date.now() - (fireTime?.getTime() ?? Number.NaN));
        },
      },
    },
  });
  const sentAt = new Map<string, number>();
  runtime.deps.queue = recordingSends(runtime.deps.queue, sentAt);

  const seeding = performance.now();
  const fireAt = Math.ceil((Date.now() + options.leadSeconds * 1000) / 1000) * 1000;
  const schedules: IntervalSchedule[] = Array.from({ length: options.schedules }, (_, n) => ({
    id: `herd-${n}`,
    task: 'herd',
    intervalSeconds: 86_400,
    startAt: fireAt,
    coalesce: 'latest',
    misfireGraceSeconds: null,
  }));
  await seedSchedules(runtime.seedTarget, schedules);
  const seedSeconds = (performance.now() - seeding) / 1000;
  log(`  seeded ${options.schedules} schedules due at one second in ${seedSeconds.toFixed(1)} s`);
  if (Date.now() > fireAt - 5_000)
    throw new Error(`seeding took longer than the ${options.leadSeconds} s lead`);

  runtime.meter.reset();
  sqs.resetCounts();
  let shardLeases = 0;
  let stopTicking = false;
  let currentTick: Promise<unknown> = Promise.resolve();
  const dispatchStart = performance.now();
  const tickLoop = (async () => {
    while (!stopTicking) {
      const started = performance.now();
      const tick = runtime.tick();
      currentTick = tick;
      shardLeases += (await tick).shardsLeased;
      await sleep(Math.max(0, 1_000 - (performance.now() - started)));
    }
  })();
  const pollers = startPollers({
    client: sqs.client,
    queueUrl: runtime.queue.queueUrl,
    queueArn: runtime.queue.queueArn,
    count: options.workers,
    handler: runtime.worker,
  });
  const sentAll = await waitFor(
    () => sentAt.size >= options.schedules,
    Math.max(0, fireAt - Date.now()) + 60_000,
  );
  const dispatchSeconds = (performance.now() - dispatchStart) / 1000;
  // A schedule is moved on (or handed over to due notes) after its fire is sent: count that write too.
  await currentTick.catch(() => {});
  const capacity = runtime.meter.snapshot().total as CapacityTotals;
  const sqsSends = (sqs.requests.SendMessageBatch ?? 0) + (sqs.requests.SendMessage ?? 0);
  log(
    `  queued ${sentAt.size}/${options.schedules} in ${dispatchSeconds.toFixed(1)} s; waiting for the fire time`,
  );
  if (!sentAll) log('  not every fire was queued within a minute after the fire time');

  const ranAll = await waitFor(
    () => starts.size >= options.schedules,
    Math.max(0, fireAt - Date.now()) + 30 * 60_000,
  );
  stopTicking = true;
  await Promise.all([tickLoop, pollers.stop()]);
  log(
    `  ran ${starts.size}/${options.schedules} jobs${ranAll ? '' : ' (gave up waiting)'}, ${duplicates} twice`,
  );

  const sent = [...sentAt.values()];
  const dispatched = Math.max(1, sentAt.size);
  return {
    options: {
      schedules: options.schedules,
      leadSeconds: options.leadSeconds,
      dispatchers: options.dispatchers,
      shards: options.shards,
      workers: options.workers,
    },
    seedSeconds,
    dispatchSeconds,
    schedulesPerSecond: sentAt.size / dispatchSeconds,
    rawWritesPerSecond: options.rawWritesPerSecond,
    sentBeforeFireTime: sent.filter((at) => at < fireAt).length,
    sentAhead: distribution(sent.map((at) => fireAt - at)),
    executed: starts.size,
    duplicates,
    lag: distribution([...starts.values()]),
    perSchedule: {
      wru: capacity.writeUnits / dispatched,
      indexWru: capacity.indexWriteUnits / dispatched,
      failedWru: capacity.failedWriteUnits / dispatched,
      rru: capacity.readUnits / dispatched,
      sqsSends: sqsSends / dispatched,
    },
    shardLeases,
  };
}

/** The queue, noting when each job's message was first accepted. */
function recordingSends(queue: JobQueue, sentAt: Map<string, number>): JobQueue {
  return {
    async send(messages) {
      const outcome = await queue.send(messages);
      const now = Date.now();
      const failed = new Set(outcome.failed);
      for (const message of messages) {
        if (!failed.has(message.job.id) && !sentAt.has(message.job.id)) sentAt.set(message.job.id, now);
      }
      return outcome;
    },
    changeVisibility: (receiptHandle, seconds) => queue.changeVisibility(receiptHandle, seconds),
  };
}

const ms = (value: number) => `${Math.round(value).toLocaleString('en-US')} ms`;

/** Each job's own conditional writes: its claim and its result (ADR 0001). */
const WRITES_PER_JOB = 2;

/**
 * The least fire lag p99 this machine allows the herd: 99 % of its jobs' own writes at the raw
 * conditional-write ceiling of the same run, with nothing else (no reads, sends, receives) on the cores.
 */
export function herdLagFloorMs(result: HerdResult): number {
  return (0.99 * result.executed * WRITES_PER_JOB * 1000) / result.rawWritesPerSecond;
}

/** The herd's section of bench/results/latest.md. */
export function herdMarkdown(result: HerdResult): string {
  const { options } = result;
  const ratio = result.schedulesPerSecond / result.rawWritesPerSecond;
  const percentBefore = (100 * result.sentBeforeFireTime) / options.schedules;
  const floorMs = herdLagFloorMs(result);
  const drainPerSecond = result.executed / Math.max(0.001, result.lag.max / 1000);
  return [
    '',
    '## Herd: many schedules due at the same second (ADR 0006)',
    '',
    `${options.schedules.toLocaleString('en-US')} daily schedules due at one second, added ${options.leadSeconds} s ahead (seeding took ${result.seedSeconds.toFixed(0)} s of it); a tick every second fanning out to ${options.dispatchers} dispatchers over ${options.shards} shards, isolated fires sent up to 900 s early; ${options.workers} worker pollers.`,
    '',
    '| figure | value | target |',
    '| --- | --- | --- |',
    `| sent before their fire time | ${result.sentBeforeFireTime.toLocaleString('en-US')} of ${options.schedules.toLocaleString('en-US')} (${percentBefore.toFixed(1)} %) | 100 % |`,
    `| queued ahead of the fire time | min ${ms(result.sentAhead.min)}, p50 ${ms(result.sentAhead.p50)}, max ${ms(result.sentAhead.max)} | |`,
    `| dispatch throughput | ${result.schedulesPerSecond.toFixed(0)} schedules/s in ${result.dispatchSeconds.toFixed(1)} s = **${(100 * ratio).toFixed(0)} %** of the raw ceiling (${result.rawWritesPerSecond.toFixed(0)} writes/s) | ≥ 80 % of the raw ceiling |`,
    `| fire lag (handler start − fire time) | p50 ${ms(result.lag.p50)}, p99 ${ms(result.lag.p99)}, max ${ms(result.lag.max)} (${result.executed.toLocaleString('en-US')} ran, ${result.duplicates} twice) | p99 ≤ 1 s |`,
    `| the least fire lag p99 this machine allows | ${ms(floorMs)}: 99 % of the herd's ${WRITES_PER_JOB * result.executed} job writes (claim and result) at the raw ceiling; measured p99 **${(result.lag.p99 / floorMs).toFixed(2)}×** that; the ${options.workers} pollers ran ${drainPerSecond.toFixed(0)} jobs/s once due (${((100 * drainPerSecond * WRITES_PER_JOB) / result.rawWritesPerSecond).toFixed(0)} % of the ceiling in job writes) | p99 ≤ 1 s needs a herd this machine runs in a second |`,
    `| per dispatched schedule | ${result.perSchedule.wru.toFixed(2)} WRU (${result.perSchedule.indexWru.toFixed(2)} GSI, ${result.perSchedule.failedWru.toFixed(2)} refused), ${result.perSchedule.rru.toFixed(2)} RRU, ${result.perSchedule.sqsSends.toFixed(3)} SendMessageBatch; shard leases: ${result.shardLeases.toLocaleString('en-US')} over the whole run (one per shard per tick, a tick a second) | |`,
    '',
  ].join('\n');
}
