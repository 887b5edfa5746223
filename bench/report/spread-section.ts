import type { SpreadResult } from '../scenarios/spread';
import { costPerMillion } from './prices';

const n = (value: number, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : '–';

/** The label of a spread run in the cost tables. */
export function spreadLabel(run: SpreadResult): string {
  const { options } = run;
  const task = options.maxRunningJobs === null ? 'unlimited' : `maxRunningJobs ${options.maxRunningJobs}`;
  return `${n(options.schedules)} fires spread over ${options.periodSeconds} s, ${task}`;
}

/** Traffic spread over the tick period: fire lag, the worker's wait for run times and the cost per job. */
export function spreadSection(runs: readonly SpreadResult[], sendPhaseToleranceMs: number): string[] {
  const phases =
    sendPhaseToleranceMs > 0
      ? `the tick sends each fire at the sub-second phase where its whole-second delay ends 10–${sendPhaseToleranceMs} ms before its run time (\`SUNDIAL_SEND_PHASE_TOLERANCE_MS=${sendPhaseToleranceMs}\`), during the first quarter of its budget`
      : 'the tick sends every fire at once (`SUNDIAL_SEND_PHASE_TOLERANCE_MS=0`): the worker waits out the sub-second rest, up to 1 s';
  const lines = [
    '',
    '## Traffic spread over the tick period',
    '',
    `Hourly schedules whose fire times are spread evenly over a 60 s tick period (every sub-second phase), dispatched by one tick 5 s before the first (default lookahead 90 s, budget 40 s, rounds of 100), then a tick once a minute as in AWS; ${phases}. Worker wait = the time a worker idles before a job's run time (a batch waits for its latest message).`,
    '',
    '| scenario | ran | ran twice | dispatch tick | fire lag p50 · p99 · max | worker wait ms / job · / invocation | WRU / job | $ / million jobs |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const run of runs) {
    const { lag, costs } = run;
    lines.push(
      `| ${spreadLabel(run)} | ${n(run.executed)} | ${run.duplicates} | ${n(run.tickSeconds, 1)} s | ${n(lag.p50)} · **${n(lag.p99)}** · ${n(lag.max)} ms | ${n(costs.workerWaitMsPerJob)} · ${n(costs.workerWaitMsPerInvocation)} | **${n(costs.wru, 2)}** | **$${n(costPerMillion(costs).total, 2)}** |`,
    );
  }
  return lines;
}
