import { type CapacityTotals, type CostKind, emptyTotals } from './capacity-meter';
import type { PollerStats } from './pollers';
import type { SqsRequestCounts } from './sqs';

/** What one fired job cost, measured over a whole scenario (tick and workers) and divided by its jobs. */
export interface JobCosts {
  jobs: number;
  /** DynamoDB write units per job, GSI writes included; split into the parts below. */
  wru: number;
  /** Claim and result (the job's own item and its index entries), and its share of its task's fire log. */
  jobWru: number;
  /** Moving the schedule on (its notes, their cursors, the shard leases), amortised over its fires. */
  scheduleWru: number;
  /**
   * The removal of each finished schedule (a transaction: delete + removal record), spread over the jobs
   * here. Included in `wru`; see `withoutScheduleEnds`.
   */
  scheduleEndWru: number;
  /** Index write units of those removals (included in `indexWru`). */
  scheduleEndIndexWru: number;
  /** Everything else the tick does (reaping, parked jobs, counters), amortised. */
  otherWru: number;
  indexWru: number;
  /** Writes DynamoDB refused on their condition (billed by item size; included in `wru`). */
  failedWru: number;
  rru: number;
  /** SQS requests per job (send, receive with messages, delete, change visibility). */
  sqsRequests: number;
  sqsByAction: Record<string, number>;
  /** Receives that returned nothing (long polling while idle): a fixed cost, not per job. */
  emptyReceives: number;
  /** Worker invocations (non-empty batches) per job. */
  invocations: number;
  /** Average worker invocation duration (ms): billed Lambda time. */
  workerMsPerInvocation: number;
  /** The worker's idle wait for run times (ms): per job, and per invocation (a batch's longest wait). */
  workerWaitMsPerJob: number;
  workerWaitMsPerInvocation: number;
  /** Tick Lambda time per job (ms). */
  tickMsPerJob: number;
}

export function jobCosts(input: {
  jobs: number;
  capacity: Record<CostKind | 'total', CapacityTotals>;
  sqs: SqsRequestCounts;
  pollers: PollerStats;
  tickMs: number;
}): JobCosts {
  const { jobs, capacity } = input;
  const per = (value: number) => (jobs > 0 ? value / jobs : Number.NaN);
  const total = capacity.total ?? emptyTotals();
  const writes = (kind: CostKind) => capacity[kind]?.writeUnits ?? 0;
  const sqsByAction: Record<string, number> = {};
  let sqsRequests = 0;
  for (const [action, count] of Object.entries(input.sqs)) {
    if (action === 'EmptyReceive' || action === 'CreateQueue' || action === 'GetQueueAttributes') continue;
    sqsByAction[action] = per(count);
    sqsRequests += count;
  }
  return {
    jobs,
    wru: per(total.writeUnits),
    jobWru: per(writes('job')),
    scheduleWru: per(writes('schedule')),
    scheduleEndWru: per(writes('scheduleEnd')),
    scheduleEndIndexWru: per(capacity.scheduleEnd?.indexWriteUnits ?? 0),
    otherWru: per(writes('other')),
    indexWru: per(total.indexWriteUnits),
    failedWru: per(total.failedWriteUnits),
    rru: per(total.readUnits),
    sqsRequests: per(sqsRequests),
    sqsByAction,
    emptyReceives: input.sqs.EmptyReceive ?? 0,
    invocations: per(input.pollers.invocations),
    workerMsPerInvocation:
      input.pollers.invocations > 0 ? input.pollers.busyMs / input.pollers.invocations : Number.NaN,
    workerWaitMsPerJob: per(input.pollers.waitMs.perMessage),
    workerWaitMsPerInvocation:
      input.pollers.invocations > 0
        ? input.pollers.waitMs.perInvocation / input.pollers.invocations
        : Number.NaN,
    tickMsPerJob: per(input.tickMs),
  };
}

/**
 * The costs of a steady load: without the removal of each schedule at its end, which a schedule pays
 * once however long it fires (in a short run where every schedule ends, it weighs on every job).
 */
export function withoutScheduleEnds(costs: JobCosts): JobCosts {
  return {
    ...costs,
    wru: costs.wru - costs.scheduleEndWru,
    indexWru: costs.indexWru - costs.scheduleEndIndexWru,
    scheduleEndWru: 0,
    scheduleEndIndexWru: 0,
  };
}

type MeterSnapshot = Record<CostKind | 'total', CapacityTotals>;

/**
 * A run's capacity as metered when its last job ran (`fires`), with the removals of its finished
 * schedules as metered later (`end`, the same meter after the closing notes removed them: ADR 0011).
 * The rest of what the meter counted in between is the idle platform's (shard leases, cursors).
 */
export function withRemovalsFrom(fires: MeterSnapshot, end: MeterSnapshot): MeterSnapshot {
  const total = { ...fires.total };
  for (const key of Object.keys(total) as (keyof CapacityTotals)[]) {
    total[key] += end.scheduleEnd[key] - fires.scheduleEnd[key];
  }
  return { ...fires, scheduleEnd: { ...end.scheduleEnd }, total };
}
