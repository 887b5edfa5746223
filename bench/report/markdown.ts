import type { DispatchResult } from '../scenarios/dispatch';
import type { CriticalJobResult, LimitedTaskResult } from '../scenarios/limited-task';
import type { RateLimitResult } from '../scenarios/rate-limited-task';
import type { SpreadResult } from '../scenarios/spread';
import { type JobCosts, withoutScheduleEnds } from '../support/costs';
import { type FireLagPoint, fireLagSection, highestLoad, loadLabel } from './fire-lag-section';
import {
  ASSUMED_MEMORY_GB,
  ASSUMED_WORKER_WORK_MS_PER_INVOCATION,
  costPerMillion,
  EVENTBRIDGE_SCHEDULER_PER_MILLION,
  PRICES,
  PROVISIONED_UTILIZATION,
  unitPrices,
  workerWaitGbSecondsPerMillion,
} from './prices';
import { spreadLabel, spreadSection } from './spread-section';

export interface BenchReport {
  startedAt: Date;
  seconds: number;
  environment: string[];
  /** The raw ceiling, and the same writes moving the due index key on the production table. */
  raw: { writesPerSecond: number; writes: number; concurrency: number };
  dispatch: DispatchResult[];
  /** The fire-lag runs, one per load (ascending): Sundial's, then BullMQ's job schedulers on the same workload. */
  fireLag: FireLagPoint[];
  /** The limited-task scenarios (waiting lines); absent when skipped. */
  limited?: { runs: LimitedTaskResult[]; critical?: CriticalJobResult };
  /** The rate-limit scenario; absent when skipped. */
  rateLimited?: RateLimitResult;
  /** Fires spread over the tick period, unlimited and limited task (`SUNDIAL_SEND_PHASE_TOLERANCE_MS` of the run). */
  spread?: { runs: SpreadResult[]; sendPhaseToleranceMs: number };
}

const n = (value: number, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : '–';
const dollars = (value: number) => `$${n(value, 2)}`;

/** The limited-task scenarios: a backlog on a task with `maxRunningJobs`, woken from its waiting line. */
function limitedTaskSection(limited: NonNullable<BenchReport['limited']>): string[] {
  const lines = [
    '',
    '## Limited task under a backlog (waiting line)',
    '',
    "Jobs of one task arrive at once; those that find no free slot wait in the task's line and are woken as slots come back, with the ticks every second (as `npm start` runs them) and every minute (as in AWS). Time from the first start to the last end against the ideal (the runs back to back); slot use = handler time ÷ (limit × that time); longest free slot = the longest from a run's end to the next start while jobs waited.",
    '',
    '| jobs × run time | maxRunningJobs | tick every | time | ideal | slot use | longest free slot | at most at once | ran | ran twice |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const run of limited.runs) {
    const { options } = run;
    lines.push(
      `| ${options.jobs} × ${n(options.runMs)} ms | ${options.maxRunningJobs} | ${options.tickSeconds} s | **${n(run.wallMs / 1000, 1)} s** | ${n(run.idealMs / 1000)} s | **${n(run.slotUse * 100)} %** | ${n(run.longestHandOverMs)} ms | ${run.maxRunning} | ${run.executed} | ${run.duplicates} |`,
    );
  }
  if (limited.critical) {
    lines.push(
      '',
      `A critical job added behind ${limited.critical.waitingNormal} waiting normal jobs (maxRunningJobs 1): **${limited.critical.startedBefore}** of them woken after it was added started before it (0: it started next); ${limited.critical.alreadyWoken} already woken, on its way to the slot when it was added, started first.`,
    );
  }
  return lines;
}

/** The rate-limit scenario: a backlog on a task with `rateLimit`, measured inside the handlers. */
function rateLimitSection(run: RateLimitResult): string[] {
  const { options } = run;
  const limit = options.max / options.perSeconds;
  return [
    '',
    '## Rate-limited task under a backlog',
    '',
    `${options.jobs} jobs of ${n(options.runMs)} ms sent at once to a task with \`rateLimit: { max: ${options.max}, perSeconds: ${options.perSeconds} }\`; starts recorded inside the handlers.`,
    '',
    `| jobs | limit | most starts in any ${options.perSeconds} s | achieved | of the limit | over | ran | ran twice |`,
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${options.jobs} | ${options.max} per ${options.perSeconds} s | **${run.maxInAnyWindow}** | **${n(run.achievedPerSecond, 2)} /s** | ${n((run.achievedPerSecond / limit) * 100)} % | ${n(run.spanMs / 1000, 1)} s | ${run.executed} | ${run.duplicates} |`,
  ];
}

/** The scenarios whose per-job costs are reported, with their labels. */
export function costRows(report: BenchReport): { label: string; costs: JobCosts }[] {
  const rows = report.dispatch.map((result) => ({
    label: `${n(result.size)} schedules, 1 fire per tick`,
    costs: result.costs,
  }));
  for (const point of report.fireLag) {
    const { options } = point.sundial;
    rows.push({
      label: `${n(options.schedules)} × every ${options.intervalSeconds} s, ${loadLabel(point)} (steady)`,
      costs: withoutScheduleEnds(point.sundial.costs),
    });
  }
  const highest = highestLoad(report.fireLag);
  if (highest) {
    const { options, costs, expected } = highest.sundial;
    rows.push({
      label: `${n(options.schedules)} × every ${options.intervalSeconds} s, ${loadLabel(highest)}, ending after ${n(expected / options.schedules)} fires`,
      costs,
    });
  }
  for (const run of report.spread?.runs ?? []) rows.push({ label: spreadLabel(run), costs: run.costs });
  return rows;
}

export function renderMarkdown(report: BenchReport, chartFile: string): string {
  const lines: string[] = [];
  const push = (...more: string[]) => lines.push(...more);
  push(
    '# Sundial benchmark: latest figures',
    '',
    `Measured by \`npm run bench\` on ${report.startedAt.toISOString()} in ${n(report.seconds)} s, all figures from this one run.`,
    '',
    ...report.environment.map((line) => `- ${line}`),
    '',
    `![per-job cost, fire-lag histogram and p99 against the store's load](${chartFile})`,
    '',
    '## Tick throughput',
    '',
    `Raw ceiling of this DynamoDB Local: **${n(report.raw.writesPerSecond)} conditional writes/s** (${n(report.raw.writes)} UpdateItem on distinct items of an index-less table, ${report.raw.concurrency} in flight).`,
    'The tick handler (the real one, over DynamoDB Local and fauxqs, default settings) dispatches due schedules until none is left; each tick stops acquiring after its 40 s budget, so large sizes take several ticks.',
    '',
    '| due schedules | ticks | time | schedules dispatched/s | of raw write ceiling |',
    '| ---: | ---: | ---: | ---: | ---: |',
  );
  for (const result of report.dispatch) {
    const percentOf = (ceiling: number) => n((100 * result.schedulesPerSecond) / ceiling);
    push(
      `| ${n(result.size)} | ${result.ticks} | ${n(result.tickSeconds, 1)} s | ${n(result.schedulesPerSecond)} | **${percentOf(report.raw.writesPerSecond)} %** |`,
    );
  }
  push(...fireLagSection(report.fireLag, report.raw.writesPerSecond));
  if (report.spread) push(...spreadSection(report.spread.runs, report.spread.sendPhaseToleranceMs));
  if (report.limited) push(...limitedTaskSection(report.limited));
  if (report.rateLimited) push(...rateLimitSection(report.rateLimited));
  push(
    '',
    '## Per fired job',
    '',
    'Capacity as AWS bills it: `ReturnConsumedCapacity: INDEXES` of every store request (item size and GSI writes included), transactions at 2 WRU per KB and item (DynamoDB Local reports 4), and writes refused on their condition, which DynamoDB bills by the item\'s size but reports nowhere (counted by the store, shown apart as "failed"). SQS requests counted on the client, worker invocations = non-empty batches. WRU split: the job (claim + result), the schedule (lease + release or one advance, shared by the fires it sends), the removal of each finished schedule (paid once per schedule: the steady rows leave it out, the row "ending after" spreads it over the short run\'s fires at the highest load), the rest of the tick (reaper, parked jobs, counters).',
    '',
    '| scenario | WRU / job | job · schedule · schedule end · other | of which GSI | of which failed | RRU / job | SQS req. / job | send · receive · delete | worker invocations / job | ms / invocation | worker wait for run time: ms / job · ms / invocation · GB-s / million jobs |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const { label, costs } of costRows(report)) {
    const action = (name: string) => n(costs.sqsByAction[name] ?? 0, 2);
    push(
      `| ${label} | **${n(costs.wru, 2)}** | ${n(costs.jobWru, 2)} · ${n(costs.scheduleWru, 2)} · ${n(costs.scheduleEndWru, 2)} · ${n(costs.otherWru, 2)} | ${n(costs.indexWru, 2)} | ${n(costs.failedWru, 2)} | ${n(costs.rru, 2)} | ${n(costs.sqsRequests, 2)} | ${action('SendMessageBatch')} · ${action('ReceiveMessage')} · ${action('DeleteMessageBatch')} | ${n(costs.invocations, 3)} | ${n(costs.workerMsPerInvocation)} | ${n(costs.workerWaitMsPerJob)} · ${n(costs.workerWaitMsPerInvocation)} · ${n(workerWaitGbSecondsPerMillion(costs))} |`,
    );
  }
  push(
    '',
    '## Cost per million jobs (AWS us-east-1 list prices)',
    '',
    '| scenario | DynamoDB writes | DynamoDB reads | SQS | Lambda requests | Lambda duration | **total** | total, provisioned table | EventBridge Scheduler |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const { label, costs } of costRows(report)) {
    const cost = costPerMillion(costs);
    const provisioned = costPerMillion(costs, 'provisioned');
    push(
      `| ${label} | ${dollars(cost.dynamoWrites)} | ${dollars(cost.dynamoReads)} | ${dollars(cost.sqs)} | ${dollars(cost.lambdaRequests)} | ${dollars(cost.lambdaDuration)} | **${dollars(cost.total)}** | ${dollars(provisioned.total)} | ${dollars(EVENTBRIDGE_SCHEDULER_PER_MILLION)} |`,
    );
  }
  push(
    '',
    `Prices: DynamoDB on-demand $${n(PRICES.dynamoWriteUnit * 1e6, 3)} per million WRU and $${n(PRICES.dynamoReadUnit * 1e6, 3)} per million RRU; provisioned $${PRICES.dynamoProvisionedWriteUnitHour} per WCU-hour and $${PRICES.dynamoProvisionedReadUnitHour} per RCU-hour, at a steady load with auto scaling holding ${n(PROVISIONED_UTILIZATION * 100)} % utilisation ($${n(unitPrices('provisioned').write * 1e6, 3)} per million WRU); SQS $${n(PRICES.sqsRequest * 1e6, 2)} per million requests (64 KB chunks; job messages are < 2 KB); Lambda arm64 $${PRICES.lambdaGbSecondArm} per GB-s and $${n(PRICES.lambdaRequest * 1e6, 2)} per million requests; EventBridge Scheduler $${n(EVENTBRIDGE_SCHEDULER_PER_MILLION, 2)} per million invocations (its target's cost not included). No free tiers.`,
    '',
    `Assumptions: worker Lambda ${ASSUMED_MEMORY_GB.worker * 1024} MB, billed per invocation for the measured wait for run times above (a batch waits out the rest before its latest message's run time: up to 1 s when the tick sent at once, tens of ms when it sends at sub-second phases) plus ${n(ASSUMED_WORKER_WORK_MS_PER_INVOCATION)} ms of DynamoDB calls (the local ms / invocation above are slower because DynamoDB Local shares 2 cores with everything else); worker invocations per job as measured. Tick Lambda ${ASSUMED_MEMORY_GB.tick * 1024} MB for its measured run time here, shared by the jobs it dispatched (conservative). The task's own run time is not included (the benchmark's handlers return at once). Empty receives (idle long polling: ~3 requests per poller per minute) are a fixed cost of the event source, not per job, and are left out. WRU as metered: item sizes, transactions at two per KB and item, and refused conditional writes included.`,
  );
  return `${lines.join('\n')}\n`;
}
