/**
 * Store benchmark (`npm run bench:store`): the throughput and capacity units of the admin write that
 * starts a schedule's chain (its item and first note, ADR 0008), and per job claim/finish, next to the
 * raw conditional-write ceiling of the same DynamoDB Local. Starts and stops its own DynamoDB Local;
 * prints a markdown table.
 */
import { DynamoDbStore } from '../lib/adapters/dynamodb/dynamodb-store';
import type { ScheduleDefinition } from '../lib/core/model/schedule';
import { DEFAULT_NOTE_GRID, firstOpenBucket } from '../lib/core/planning/note-chunks';
import type { TriggerSpec } from '../lib/core/triggers/schema';
import {
  CapacityMeter,
  type CapacityTotals,
  DYNAMODB_LOCAL_TRANSACTION_REPORT_SCALE,
} from './support/capacity-meter';
import { type BenchDynamo, rawConditionalWrites, startBenchDynamo } from './support/dynamo';
import { inParallel } from './support/parallel';

const CONCURRENCY = 32;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const RAW_WRITES = 5_000;
const JOBS = 1_000;
/** `--schedules`: only the schedule scenarios. */
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
    for (const count of [1_000, 10_000]) rows.push(await startChains(dynamo, count));
    if (!SCHEDULES_ONLY) {
      rows.push(...(await claimAndFinish(dynamo, undefined)));
      rows.push(...(await claimAndFinish(dynamo, 1_000_000)));
    }
    printTable(rows, raw);
  } finally {
    await dynamo.stop();
  }
}

/** N schedules added as the admin API adds them: each item with its chain's first note, in one transaction. */
async function startChains(dynamo: BenchDynamo, count: number): Promise<Row> {
  const meter = new CapacityMeter({ transactionReportScale: DYNAMODB_LOCAL_TRANSACTION_REPORT_SCALE });
  const tableName = await dynamo.newTable(`chains-${count}`);
  const store = new DynamoDbStore({ client: meter.attach(dynamo.newClient()), tableName });
  const now = Date.now();
  const open = firstOpenBucket(DEFAULT_NOTE_GRID, now);
  const started = performance.now();
  await inParallel(count, CONCURRENCY, async (n) => {
    const id = `chain-${n}`;
    const nextFireAt = now + 10 * 60_000 + (n % 60) * 1_000;
    const entry = { scheduleId: id, chain: `c${n.toString(36)}`, nextFireAt, runs: 0, lastFireAt: null };
    await store.addSchedule({
      schedule: definition(id),
      position: { nextFireAt, lastFireAt: null, runs: 0 },
      start: { chain: entry.chain, note: { bucket: open, entry }, writer: `bench.${n}.0`, now },
      conflictPolicy: 'exception',
      now,
    });
  });
  const seconds = (performance.now() - started) / 1000;
  const total = meter.snapshot().total as CapacityTotals;
  return {
    scenario: `add_schedule's write (item + first note), ${count} schedules`,
    perSecond: count / seconds,
    unit: 'schedules/s',
    wru: total.writeUnits / count,
    rru: total.readUnits / count,
    indexWru: total.indexWriteUnits / count,
  };
}

/** Claim then finish jobs, unlimited or with a concurrency limit (a counter slot in each transaction). */
async function claimAndFinish(dynamo: BenchDynamo, limit: number | undefined): Promise<Row[]> {
  const meter = new CapacityMeter({ transactionReportScale: DYNAMODB_LOCAL_TRANSACTION_REPORT_SCALE });
  const tableName = await dynamo.newTable(limit === undefined ? 'jobs' : 'jobs-limited');
  const store = new DynamoDbStore({ client: meter.attach(dynamo.newClient()), tableName });
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
