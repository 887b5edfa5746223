import type { BullmqFireLagResult } from '../scenarios/bullmq-fire-lag';
import type { FireLagResult } from '../scenarios/fire-lag';
import type { LagWrites } from '../support/load-curve';
import { type Distribution, steadyLag } from '../support/stats';

/** One load of the fire-lag curve: Sundial's run, then BullMQ's on the same workload. */
export interface FireLagPoint {
  /** The load asked for, in % of the raw conditional-write ceiling. */
  loadPercent: number;
  /** The schedules that load made (`schedulesForLoad`). */
  schedules: number;
  /** What the schedules were sized with: the platform's writes idle, per fire and per removal (`LagWrites`). */
  writes: LagWrites;
  /** Sundial's metered WRU per second of its fires ÷ the raw ceiling (`storeUse`; 0.5 = half). */
  storeUse: number;
  sundial: FireLagResult;
  bullmq: BullmqFireLagResult;
}

const n = (value: number, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : '–';
const ms = (value: number) => `${n(value)} ms`;
const percent = (share: number) => `${n(share * 100)} %`;

/** The label of a load point: `50 % load` (of the raw ceiling). */
export function loadLabel(point: FireLagPoint): string {
  return `${point.loadPercent} % load`;
}

/** The point of the highest load (the last but for a hand-made report), or undefined without any. */
export function highestLoad(points: readonly FireLagPoint[]): FireLagPoint | undefined {
  return points.reduce<FireLagPoint | undefined>(
    (highest, point) => (highest && highest.loadPercent >= point.loadPercent ? highest : point),
    undefined,
  );
}

/** Sundial's p99 over all fires ÷ BullMQ's (NaN when BullMQ was skipped). */
export function p99Ratio(point: FireLagPoint): number {
  return point.bullmq.status === 'ran' ? point.sundial.lag.p99 / point.bullmq.lag.p99 : Number.NaN;
}

/** BullMQ's lags over Sundial's steady window of the same load (its own first slot as the origin). */
function bullmqSteady(point: FireLagPoint): Distribution | undefined {
  return point.bullmq.status === 'ran' ? steadyLag(point.bullmq.timedLags, point.sundial.steady) : undefined;
}

function ranCell(run: { expected: number; executed: number; duplicates: number }): string {
  return `${n(run.executed)}/${n(run.expected)} · ${n(run.duplicates)}`;
}

/**
 * Fire lag against the store's load: one row per load (a share of the raw ceiling), Sundial's and
 * BullMQ's lag over all fires and over Sundial's steady window, then the detail of each run.
 */
export function fireLagSection(points: readonly FireLagPoint[], rawWritesPerSecond: number): string[] {
  const first = points[0];
  if (!first) return [];
  const { options } = first.sundial;
  const { writes } = first;
  const bullmqRan = points.find((point) => point.bullmq.status === 'ran')?.bullmq;
  const lines = [
    '',
    "## Fire lag against the store's load",
    '',
    `At each load, schedules firing every ${options.intervalSeconds} s (start times spread over the interval) for ${options.durationSeconds} s, as many as write that share of this run's raw ceiling (${n(rawWritesPerSecond)} writes/s), sized from what a calibration before them measured: the platform idle (${n(writes.idlePerSecond, 1)} WRU/s with no schedule), then a short run of the same scenario (${n(writes.perFire, 2)} WRU per fire, ${n(writes.perScheduleEnd, 2)} per schedule's removal): schedules = (share × ceiling − idle) ÷ (per fire ÷ ${options.intervalSeconds} s + per removal ÷ ${options.durationSeconds} s). Sundial: a tick every ${options.tickSeconds} s and ${options.workers} worker pollers (batches of 10, like the local platform and Lambda's event source: 2 of them wait in a receive at once on a quiet queue, one more for each batch that comes back full, one fewer for each empty one); lag = job start − fire time. Store use = the write units Sundial's run metered per second of its fires ÷ the raw ceiling: every write of the run, the jobs' and also the schedules' notes, the ticks' shard leases (the idle part) and each schedule's removal at the end.`,
  ];
  if (bullmqRan?.status === 'ran') {
    lines.push(
      '',
      `Then the same workload on BullMQ 6.7.0: \`upsertJobScheduler\` schedulers \`every\` ${n(options.intervalSeconds * 1000)} ms (start dates spread the same way), one \`Worker\` with concurrency ${bullmqRan.options.concurrency}, on a redis-server 127.0.0.1 without persistence started by the run; lag = processor start − the scheduler's slot. The runs go one after the other on the same machine, so the load differs a little between them.`,
    );
  }
  lines.push(
    '',
    '| load (of ceiling) | schedules | jobs/s | store use | Sundial p50 · p99, all fires | Sundial steady p99 | Sundial ran/expected · twice | BullMQ p50 · p99, all fires | BullMQ steady p99 | BullMQ ran/expected · twice | Sundial p99 ÷ BullMQ p99 (all) |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const point of points) {
    const { sundial, bullmq } = point;
    const steady = bullmqSteady(point);
    const bullmqCells =
      bullmq.status === 'ran'
        ? [
            `${n(bullmq.lag.p50)} · **${ms(bullmq.lag.p99)}**`,
            `**${ms(steady?.p99 ?? Number.NaN)}**`,
            ranCell(bullmq),
            `${n(p99Ratio(point), 2)}×`,
          ]
        : ['–', '–', '–', '–'];
    const cells = [
      `${point.loadPercent} %`,
      n(point.schedules),
      n(point.schedules / sundial.options.intervalSeconds),
      percent(point.storeUse),
      `${n(sundial.lag.p50)} · **${ms(sundial.lag.p99)}**`,
      `**${ms(sundial.steady.lag.p99)}**`,
      ranCell(sundial),
      ...bullmqCells,
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  const skipped = [
    ...new Set(points.flatMap((point) => (point.bullmq.status === 'skipped' ? [point.bullmq.reason] : []))),
  ];
  for (const reason of skipped) {
    const how = reason.startsWith('redis-server')
      ? ' (`apt-get install redis-server` puts it on PATH; the bench starts and stops its own)'
      : '';
    lines.push('', `BullMQ runs skipped: ${reason}${how}.`);
  }
  lines.push(
    '',
    `Steady: the fires from one interval after the first tick finished sending its first fires (the chains' first chunks, which on this machine compete with the first fires) to one interval before the end (the schedules' last interval, which finishes them; their closing notes remove them a minute or more later, ADR 0011). BullMQ's steady figures are over the same window of the same load, from its own first fire time.`,
    '',
    '| load | system | p50 | p95 | p99 | max | steady window | steady fires | steady p50 | steady p95 | steady max |',
    '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const point of points) {
    const { sundial, bullmq } = point;
    const window = `+${n(sundial.steady.fromMs / 1000, 1)} s to +${n(sundial.steady.toMs / 1000, 1)} s`;
    const row = (system: string, lag: Distribution, steady: Distribution) =>
      `| ${point.loadPercent} % | ${system} | ${ms(lag.p50)} | ${ms(lag.p95)} | ${ms(lag.p99)} | ${ms(lag.max)} | ${window} | ${n(steady.count)} | ${ms(steady.p50)} | ${ms(steady.p95)} | ${ms(steady.max)} |`;
    lines.push(row('Sundial', sundial.lag, sundial.steady.lag));
    const steady = bullmqSteady(point);
    if (bullmq.status === 'ran' && steady) lines.push(row('BullMQ', bullmq.lag, steady));
  }
  const unexpected = points.flatMap((point) =>
    point.bullmq.status === 'ran' && point.bullmq.unexpected.length > 0
      ? [`${n(point.bullmq.unexpected.length)} at ${point.loadPercent} %`]
      : [],
  );
  if (unexpected.length > 0) {
    lines.push(
      '',
      `BullMQ also ran jobs at slots after the schedulers' end date (left out of its lags): ${unexpected.join(', ')}.`,
    );
  }
  return lines;
}
