import type { PollerStats } from '../support/pollers';
import type { SoakVerdict } from './checks';
import type { Faults } from './faults';
import type { MetricTotals } from './metric-totals';
import type { ExecutionRecorder } from './recorder';

/** Prints the soak's figures and its verdict (stdout). */
export function printSoak(input: {
  verdict: SoakVerdict;
  faults: Faults;
  metrics: MetricTotals;
  recorder: ExecutionRecorder;
  pollers: PollerStats;
  drainSeconds: number;
  seconds: number;
}): void {
  const { verdict, faults, metrics } = input;
  const lines = [
    '',
    `soak finished in ${input.seconds.toFixed(0)} s (drain ${input.drainSeconds.toFixed(0)} s)`,
    `fires expected ${verdict.expected}, ran ${verdict.executed}; missing ${verdict.missing.length}, twice ${verdict.twice.length}, unexpected ${verdict.unexpected.length}`,
    `faults injected: ${Object.entries(faults.injected)
      .map(([kind, count]) => `${kind} ${count}`)
      .join(', ')} (rates ${Object.entries(faults.rates)
      .map(([kind, rate]) => `${kind} ${rate}`)
      .join(', ')})`,
    `runtime: succeeded ${metrics.get('JobsSucceeded')}, reaped ${metrics.get('JobsReaped')}, retried ${metrics.get('JobsRetried')}, deferred (no slot / attempt still running) ${metrics.get('JobsDeferred')}, failed ${metrics.get('JobsFailed')}, missed ${metrics.get('JobsMissed')}, tick errors ${metrics.get('TickErrors')}, send failures ${metrics.get('SendFailures')}`,
    `worker invocations ${input.pollers.invocations} (${input.pollers.messages} messages); runs taken back after a worker crash: ${input.recorder.discardedByCrash}`,
    `concurrency: ${verdict.concurrency
      .map(
        ({ task, max, limit }) => `${task} max ${max}${limit === null ? ' (no limit)' : ` / limit ${limit}`}`,
      )
      .join(', ')}`,
    `counters: ${[...verdict.counters].map(([task, running]) => `${task}=${running}`).join(', ') || '(none)'}; unfinished jobs ${verdict.unfinished}; jobs queue ${verdict.queue}; DLQ ${verdict.deadLetters}`,
    verdict.violations.length === 0
      ? 'OK: every fire ran exactly once, limits held, counters at 0, no message left'
      : `VIOLATIONS:\n  ${verdict.violations.join('\n  ')}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
