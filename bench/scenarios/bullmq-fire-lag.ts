import { createRequire } from 'node:module';
import { type Job, Queue, type RedisConnectionClient, Worker } from 'bullmq';
import { sleep } from '../support/parallel';
import { waitFor } from '../support/pollers';
import { type BenchRedis, redisServerInstalled, startBenchRedis } from '../support/redis';
import { fireTimesBetween, intervalTrigger } from '../support/schedules';
import { type Distribution, distribution, type TimedLag } from '../support/stats';

export interface BullmqFireLagOptions {
  schedules: number;
  intervalSeconds: number;
  durationSeconds: number;
  /** The BullMQ worker's concurrency. */
  concurrency: number;
  log: (line: string) => void;
}

export type BullmqFireLagResult =
  | {
      status: 'ran';
      options: Omit<BullmqFireLagOptions, 'log'>;
      expected: number;
      executed: number;
      duplicates: number;
      /** Jobs at slots no fire of the workload defines (e.g. past the end date), left out of the lags. */
      unexpected: string[];
      lagsMs: number[];
      lag: Distribution;
      /** Every job's lag with its slot as an offset from the first slot (for the steady window). */
      timedLags: TimedLag[];
    }
  | { status: 'skipped'; reason: string };

/** Job schedulers added at once. */
const UPSERTS_IN_FLIGHT = 100;

/** BullMQ 6 talks to Redis through a client it is given (or loads the optional `ioredis` itself). */
const IOREDIS_VERSION = '5.11.1';
type RedisClient = RedisConnectionClient & { quit(): Promise<unknown> };
type RedisClientConstructor = new (options: Record<string, unknown>) => RedisClient;

function loadIoredis(): RedisClientConstructor | undefined {
  try {
    const loaded = createRequire(import.meta.url)('ioredis') as { default?: RedisClientConstructor };
    return loaded.default ?? (loaded as unknown as RedisClientConstructor);
  } catch {
    return undefined;
  }
}

/**
 * The fire-lag workload on BullMQ's job schedulers, on this machine, for comparison: `schedules`
 * schedulers `every` `intervalSeconds` (start dates spread over the interval, as in the fire-lag
 * scenario), one Worker with `concurrency`. Lag = processor start − the scheduler's slot (the
 * `<nextMillis>` of its job id `repeat:<id>:<nextMillis>`). Starts its own redis-server (127.0.0.1, no
 * persistence) and stops it; skipped where redis-server (or the `ioredis` client) is not installed.
 */
export async function bullmqFireLagScenario(options: BullmqFireLagOptions): Promise<BullmqFireLagResult> {
  if (!redisServerInstalled()) return { status: 'skipped', reason: 'redis-server not installed' };
  const IORedis = loadIoredis();
  if (!IORedis) {
    return {
      status: 'skipped',
      reason: `ioredis not installed (BullMQ 6's Redis client: add ioredis ${IOREDIS_VERSION} as a devDependency)`,
    };
  }
  const redis = await startBenchRedis();
  try {
    return await runWorkload(redis, IORedis, options);
  } finally {
    await redis.stop();
  }
}

async function runWorkload(
  redis: BenchRedis,
  IORedis: RedisClientConstructor,
  options: BullmqFireLagOptions,
): Promise<BullmqFireLagResult> {
  const connect = () => new IORedis({ host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null });
  const clients = [connect(), connect()];
  const [queueClient, workerClient] = clients as [RedisClient, RedisClient];
  const queue = new Queue('fire-lag', { connection: queueClient });
  const lags = new Map<string, TimedLag>();
  let firstSlot = 0;
  const fires = new Set<string>();
  const unexpected: string[] = [];
  let duplicates = 0;
  const worker = new Worker(
    'fire-lag',
    async (job: Job) => {
      const started = Date.now();
      const id = job.id ?? '';
      const slot = Number(id.split(':').at(-1));
      if (!fires.has(id)) unexpected.push(id);
      else if (lags.has(id)) duplicates += 1;
      else lags.set(id, { offsetMs: slot - firstSlot, lagMs: started - slot });
    },
    { connection: workerClient, concurrency: options.concurrency },
  );
  try {
    await worker.waitUntilReady();
    const periodMs = options.intervalSeconds * 1000;
    const firstFire = Math.ceil(Date.now() / 1000) * 1000 + 15_000;
    firstSlot = firstFire;
    const endAt = firstFire + options.durationSeconds * 1000 - 1;
    const schedules = Array.from({ length: options.schedules }, (_, n) => ({
      id: `lag-${n}`,
      startAt: firstFire + Math.floor((n * periodMs) / options.schedules),
    }));
    for (const schedule of schedules) {
      const trigger = intervalTrigger({
        ...schedule,
        task: 'lag',
        intervalSeconds: options.intervalSeconds,
        endAt,
        coalesce: 'all',
        misfireGraceSeconds: null,
      });
      for (const fire of fireTimesBetween(trigger, schedule.startAt, endAt)) {
        fires.add(`repeat:${schedule.id}:${fire}`);
      }
    }
    // A hundred at a time (pipelined on one connection): thousands of schedulers, one round trip
    // each, would not fit in the head start on a busy machine.
    for (let from = 0; from < schedules.length; from += UPSERTS_IN_FLIGHT) {
      await Promise.all(
        schedules
          .slice(from, from + UPSERTS_IN_FLIGHT)
          .map((schedule) =>
            queue.upsertJobScheduler(
              schedule.id,
              { every: periodMs, startDate: schedule.startAt, endDate: endAt },
              { name: 'lag', data: { id: schedule.id } },
            ),
          ),
      );
    }
    const expected = fires.size;
    if (Date.now() > firstFire - 2_000)
      throw new Error('adding the job schedulers took longer than the head start');
    options.log(
      `  BullMQ ${queue.name}: ${options.schedules} job schedulers every ${options.intervalSeconds} s for ${options.durationSeconds} s: ${expected} jobs`,
    );
    await sleep(firstFire - Date.now());
    await waitFor(() => lags.size >= expected, endAt - Date.now() + 60_000);
    const timedLags = [...lags.values()];
    const lagsMs = timedLags.map((lag) => lag.lagMs);
    await sleep(2 * periodMs); // a job past the end date would start by now
    options.log(
      `  BullMQ ran ${lags.size}/${expected} jobs, ${duplicates} twice, ${unexpected.length} at slots no fire defines`,
    );
    return {
      status: 'ran',
      options: {
        schedules: options.schedules,
        intervalSeconds: options.intervalSeconds,
        durationSeconds: options.durationSeconds,
        concurrency: options.concurrency,
      },
      expected,
      executed: lags.size,
      duplicates,
      unexpected,
      lagsMs,
      lag: distribution(lagsMs),
      timedLags,
    };
  } finally {
    await worker.close();
    await queue.close();
    await Promise.allSettled(clients.map((client) => client.quit()));
  }
}
