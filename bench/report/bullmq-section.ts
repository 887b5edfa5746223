import type { BullmqFireLagResult } from '../scenarios/bullmq-fire-lag';
import type { FireLagResult } from '../scenarios/fire-lag';
import { steadyLag } from '../support/stats';

const n = (value: number) => (Number.isFinite(value) ? value.toLocaleString('en-US') : '–');

/** Sundial's fire lag next to BullMQ's job schedulers on the same workload, same machine, same run. */
export function bullmqSection(sundial: FireLagResult, bullmq: BullmqFireLagResult): string[] {
  const lines = ['', '### Side by side: BullMQ job schedulers (same workload, same machine, same run)', ''];
  if (bullmq.status === 'skipped') {
    lines.push(`BullMQ run skipped: ${bullmq.reason}.`);
    return lines;
  }
  const { options } = bullmq;
  lines.push(
    `BullMQ 6.7.0: ${n(options.schedules)} \`upsertJobScheduler\` schedulers \`every\` ${n(options.intervalSeconds * 1000)} ms (start dates spread over the interval like Sundial's schedules) for ${options.durationSeconds} s, one \`Worker\` with concurrency ${options.concurrency}, on a redis-server 127.0.0.1 without persistence started by the run; lag = processor start − the scheduler's slot. The two run one after the other on the same machine, so the load differs a little between them.`,
    '',
    '| system | jobs expected | ran | ran twice | p50 | p95 | p99 | max | steady p50 | steady p99 |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const [system, run] of [
    ['Sundial (tick every 1 s, 32 pollers)', sundial],
    ['BullMQ', bullmq],
  ] as const) {
    const { lag } = run;
    const steady = steadyLag(run.timedLags, sundial.steady);
    lines.push(
      `| ${system} | ${n(run.expected)} | ${n(run.executed)} | ${run.duplicates} | ${n(lag.p50)} ms | ${n(lag.p95)} ms | **${n(lag.p99)} ms** | ${n(lag.max)} ms | ${n(steady.p50)} ms | **${n(steady.p99)} ms** |`,
    );
  }
  lines.push(
    '',
    `Steady: the fires from +${n(sundial.steady.fromMs / 1000)} s to +${n(sundial.steady.toMs / 1000)} s after each run's first fire time (Sundial's window, see above).`,
  );
  if (bullmq.unexpected.length > 0) {
    lines.push(
      '',
      `BullMQ also ran ${n(bullmq.unexpected.length)} job${bullmq.unexpected.length === 1 ? '' : 's'} at slots after the schedulers' end date (left out of its lags).`,
    );
  }
  return lines;
}
