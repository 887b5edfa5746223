/**
 * Store benchmark (`npm run bench:store`): acquire+release throughput of due schedules, capacity units per
 * schedule and per job claim/finish, next to the raw conditional-write ceiling of the same DynamoDB Local.
 * Starts and stops its own DynamoDB Local; prints a markdown table.
 */
import {
  CapacityCounter,
  type CapacityTotals,
  DYNAMODB_LOCAL_TRANSACTION_REPORT_SCALE,
} from '../lib/adapters/dynamodb/capacity';
import { DynamoDbStore } from '../lib/adapters/dynamodb/dynamodb-store';
import type { ScheduleDefinition } from '../lib/core/model/schedule';
import type { TriggerSpec } from '../lib/core/triggers/schema';
import { type BenchDynamo, rawConditionalWrites, startBenchDynamo } from './support/dynamo';
import { inParallel } from './support/parallel';

const CONCURRENCY = 32;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const RAW_WRITES = 5_000;
const JOBS = 1_000;
/** `--schedules`: only the schedule scenarios (the tick's reads and writes). */
const SCHEDULES_ONLY = process.argv.includes('--schedules');

interface Row {
  scenario: string;
  perSecond: number;
  unit: string;
  wru: number;
  rru: number;
  indexWru: number;
}

async function main(): Promise<void> {
  const dynamo = await startBenchDynamo();
  try {
    const rows: Row[] = [];
    await rawConditionalWrites(dynamo, RAW_WRITES, CONCURRENCY); // warms the JVM up: the first run is not measured
    const raw = await rawConditionalWrites(dynamo, RAW_WRITES, CONCURRENCY);
    rows.push({
      scenario: `raw conditional UpdateItem, ${RAW_WRITES} distinct items`,
      perSecond: raw,
      unit: 'writes/s',
      wru: 1,
      rru: 0,
      indexWru: 0,
    });
    for (const count of [1_000, 10_000]) {
      for (const ticks of [1, 2]) {
        rows.push(await acquireAndRelease(dynamo, count, ticks));
        rows.push(await readAndAdvance(dynamo, count, ticks));
      }
    }
    if (!SCHEDULES_ONLY) {
      rows.push(...(await claimAndFinish(dynamo, undefined)));
      rows.push(...(await claimAndFinish(dynamo, 1_000_000)));
    }
    printTable(rows, raw);
  } finally {
    await dynamo.stop();
  }
}

/** N schedules due in the window; `ticks` overlapping ticks acquire (limit 500) and release them. */
async function acquireAndRelease(dynamo: BenchDynamo, count: number, ticks: number): Promise<Row> {
  const meter = new CapacityCounter({ transactionReportScale: DYNAMODB_LOCAL_TRANSACTION_REPORT_SCALE });
  const tableName = await dynamo.newTable(`schedules-${count}-${ticks}`);
  const store = new DynamoDbStore({ client: dynamo.client, tableName, capacityMeter: meter });
  await inParallel(count, CONCURRENCY, (n) =>
    store.addSchedule({
      schedule: definition(`s-${n}`),
      nextFireAt: T0 + (n % 60) * 1000,
      conflictPolicy: 'exception',
      now: T0,
    }),
  );
  meter.reset();
  let released = 0;
  const tick = async (owner: string) => {
    for (;;) {
      const leased = await store.acquireDueSchedules({
        owner,
        now: T0,
        dueBefore: T0 + 90_000,
        leaseMs: 60_000,
        limit: 500,
      });
      if (leased.length === 0) return;
      await inParallel(leased.length, CONCURRENCY, async (i) => {
        const schedule = leased[i];
        if (!schedule) return;
        await store.releaseSchedule({
          id: schedule.id,
          owner,
          leasedVersion: schedule.version,
          leased: {
            nextFireAt: schedule.nextFireAt,
            firesFrom: schedule.firesFrom,
            maxRuns: schedule.maxRuns,
          },
          nextFireAt: T0 + 3_600_000,
          lastFireAt: schedule.nextFireAt,
          firesDispatched: 1,
          now: T0,
        });
        released++;
      });
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: ticks }, (_, n) => tick(`tick-${n}`)));
  const seconds = (performance.now() - started) / 1000;
  if (released !== count) throw new Error(`released ${released} of ${count} schedules`);
  const total = meter.snapshot().total as CapacityTotals;
  return {
    scenario: `acquire + release, ${count} due schedules, ${ticks} tick${ticks > 1 ? 's' : ''}`,
    perSecond: count / seconds,
    unit: 'schedules/s',
    wru: total.writeUnits / count,
    rru: total.readUnits / count,
    indexWru: total.indexWriteUnits / count,
  };
}

/**
 * N schedules due in the window; `ticks` overlapping lease-less ticks read them (limit 500) and advance
 * each with one conditional write (ADR 0005); a tick leaves the ones whose advance it lost out of its
 * later reads. Refused advances are counted: the meter bills them.
 */
async function readAndAdvance(dynamo: BenchDynamo, count: number, ticks: number): Promise<Row> {
  const meter = new CapacityCounter({ transactionReportScale: DYNAMODB_LOCAL_TRANSACTION_REPORT_SCALE });
  const tableName = await dynamo.newTable(`advances-${count}-${ticks}`);
  const store = new DynamoDbStore({ client: dynamo.client, tableName, capacityMeter: meter });
  await inParallel(count, CONCURRENCY, (n) =>
    store.addSchedule({
      schedule: definition(`s-${n}`),
      nextFireAt: T0 + (n % 60) * 1000,
      conflictPolicy: 'exception',
      now: T0,
    }),
  );
  meter.reset();
  let advanced = 0;
  const tick = async () => {
    const lost = new Set<string>();
    for (;;) {
      const read = await store.readDueSchedules({ now: T0, dueBefore: T0 + 90_000, limit: 500, skip: lost });
      if (read.length === 0) return;
      await inParallel(read.length, CONCURRENCY, async (i) => {
        const schedule = read[i];
        if (!schedule || schedule.nextFireAt === null) return;
        const outcome = await store.advanceSchedule({
          id: schedule.id,
          seenVersion: schedule.version,
          seenCreatedAt: schedule.createdAt,
          seenNextFireAt: schedule.nextFireAt,
          nextFireAt: T0 + 3_600_000,
          firesDispatched: 1,
          lastFireAt: schedule.nextFireAt,
          now: T0,
        });
        // Both ticks plan the same end: the loser finds it written and recognises it as its own
        if (outcome === 'advanced') advanced++;
        else lost.add(schedule.id);
      });
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: ticks }, () => tick()));
  const seconds = (performance.now() - started) / 1000;
  const stored = await store.readDueSchedules({ now: T0, dueBefore: T0 + 90_000, limit: 1 });
  if (advanced < count || stored.length > 0) throw new Error(`advanced ${advanced} of ${count} schedules`);
  const total = meter.snapshot().total as CapacityTotals;
  return {
    scenario: `read + advance (no lease), ${count} due schedules, ${ticks} tick${ticks > 1 ? 's' : ''}`,
    perSecond: count / seconds,
    unit: 'schedules/s',
    wru: total.writeUnits / count,
    rru: total.readUnits / count,
    indexWru: total.indexWriteUnits / count,
  };
}

/** Claim then finish jobs, unlimited or with a concurrency limit (a counter slot in each transaction). */
async function claimAndFinish(dynamo: BenchDynamo, limit: number | undefined): Promise<Row[]> {
  const meter = new CapacityCounter({ transactionReportScale: DYNAMODB_LOCAL_TRANSACTION_REPORT_SCALE });
  const tableName = await dynamo.newTable(limit === undefined ? 'jobs' : 'jobs-limited');
  const store = new DynamoDbStore({ client: dynamo.client, tableName, capacityMeter: meter });
  const started = performance.now();
  await inParallel(JOBS, CONCURRENCY, async (n) => {
    const job = {
      id: `sched-${n % 50}@${T0 + n}`,
      task: 'report',
      payload: { n },
      origin: 'schedule' as const,
      scheduleId: `sched-${n % 50}`,
      fireTime: T0 + n,
      runAt: T0 + n,
      startDeadline: null,
    };
    const claim = await store.claimJob({
      job,
      attempt: 1,
      owner: `w-${n}`,
      now: T0,
      leaseUntil: T0 + 60_000,
      ...(limit ? { concurrencyLimit: limit } : {}),
    });
    if (claim.status !== 'claimed') throw new Error(`claim ${job.id}: ${claim.status}`);
    await store.finishJob({
      jobId: job.id,
      owner: `w-${n}`,
      result: {
        outcome: 'success',
        returnValue: { ok: true },
        startedAt: T0,
        finishedAt: T0 + 5,
        attempt: 1,
      },
      expiresAt: T0 + 86_400_000,
    });
  });
  const seconds = (performance.now() - started) / 1000;
  const snapshot = meter.snapshot();
  const label = limit === undefined ? 'no limit' : 'maxRunningJobs set';
  const perJob = (operation: string): Omit<Row, 'scenario' | 'perSecond' | 'unit'> => {
    const totals = snapshot[operation] ?? { calls: 0, readUnits: 0, writeUnits: 0, indexWriteUnits: 0 };
    return {
      wru: totals.writeUnits / JOBS,
      rru: totals.readUnits / JOBS,
      indexWru: totals.indexWriteUnits / JOBS,
    };
  };
  const total = snapshot.total as CapacityTotals;
  return [
    {
      scenario: `claim + finish, ${JOBS} jobs, ${label}`,
      perSecond: JOBS / seconds,
      unit: 'jobs/s',
      wru: total.writeUnits / JOBS,
      rru: total.readUnits / JOBS,
      indexWru: total.indexWriteUnits / JOBS,
    },
    { scenario: `  claimJob only (${label})`, perSecond: Number.NaN, unit: '', ...perJob('claimJob') },
    { scenario: `  finishJob only (${label})`, perSecond: Number.NaN, unit: '', ...perJob('finishJob') },
  ];
}

function definition(id: string): ScheduleDefinition {
  return {
    id,
    task: 'report',
    trigger: { type: 'interval', seconds: 60, start_at: '2026-01-01T00:00:00Z' } as unknown as TriggerSpec,
    payload: { to: 'ops@example.com' },
    coalesce: 'latest',
    misfireGraceSeconds: 30,
    maxJitterSeconds: 0,
    tags: ['bench'],
    paused: false,
    keepFinished: false,
    maxRuns: null,
  };
}

function printTable(rows: Row[], raw: number): void {
  const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '');
  console.log(`\nDynamoDB Local, concurrency ${CONCURRENCY}, ${new Date().toISOString()}\n`);
  console.log('| scenario | throughput | WRU / item | of which GSI | RRU / item | writes/s vs raw ceiling |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const row of rows) {
    const writesPerSecond = row.perSecond * row.wru;
    const ratio = Number.isFinite(row.perSecond)
      ? `${((writesPerSecond / raw) * 100).toFixed(0)} % (${fixed(row.perSecond / raw)}× items)`
      : '';
    const throughput = Number.isFinite(row.perSecond) ? `${row.perSecond.toFixed(0)} ${row.unit}` : '';
    console.log(
      `| ${row.scenario} | ${throughput} | ${fixed(row.wru)} | ${fixed(row.indexWru)} | ${fixed(row.rru)} | ${ratio} |`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
