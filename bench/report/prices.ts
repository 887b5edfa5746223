import type { JobCosts } from '../support/costs';

/** AWS us-east-1 list prices (on-demand, no free tier), as stated in docs/benchmarks.md. */
export const PRICES = {
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  /** Provisioned capacity, per capacity unit and hour. */
  dynamoProvisionedWriteUnitHour: 0.00065,
  dynamoProvisionedReadUnitHour: 0.00013,
  /** Per request of up to 64 KB (Sundial's job messages are far smaller). */
  sqsRequest: 0.4 / 1e6,
  lambdaGbSecondArm: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  eventBridgeSchedulerInvocation: 1.0 / 1e6,
} as const;

/** Lambda memory assumed for the price (the stack's defaults: worker 1,024 MB, tick 512 MB). */
export const ASSUMED_MEMORY_GB = { worker: 1, tick: 0.5 } as const;

/**
 * What a worker invocation does besides waiting for run times, assumed for the price: tens of ms of
 * DynamoDB calls in AWS (claim, schedule read, result). The local ms / invocation are far slower
 * (DynamoDB Local on a shared 2-core machine), so the measured wait is priced plus this.
 */
export const ASSUMED_WORKER_WORK_MS_PER_INVOCATION = 50;

/**
 * Billed worker time per invocation: the measured wait for run times (a batch waits out the rest before
 * its latest message's run time) plus the assumed work. Before the tick sent at sub-second phases the
 * wait was up to 1 s per batch and the price assumed 1,000 ms.
 */
export function workerMsPerInvocation(costs: Pick<JobCosts, 'workerWaitMsPerInvocation'>): number {
  const wait = Number.isFinite(costs.workerWaitMsPerInvocation) ? costs.workerWaitMsPerInvocation : 0;
  return wait + ASSUMED_WORKER_WORK_MS_PER_INVOCATION;
}

/** GB-s the worker spends waiting for run times, per million jobs (at the assumed memory). */
export function workerWaitGbSecondsPerMillion(
  costs: Pick<JobCosts, 'workerWaitMsPerInvocation' | 'invocations'>,
): number {
  return (costs.invocations * costs.workerWaitMsPerInvocation * ASSUMED_MEMORY_GB.worker * 1e6) / 1000;
}

/**
 * The utilisation provisioned capacity runs at under a steady load: auto scaling's default target
 * (the construct's `billing.targetUtilizationPercent`), so a unit-hour serves 70 % of 3,600 requests.
 */
export const PROVISIONED_UTILIZATION = 0.7;

export type TableBilling = 'on-demand' | 'provisioned';

/** Dollars per write and per read unit consumed, by billing mode (provisioned: steady load at the target utilisation). */
export function unitPrices(billing: TableBilling): { write: number; read: number } {
  if (billing === 'on-demand') return { write: PRICES.dynamoWriteUnit, read: PRICES.dynamoReadUnit };
  const perUnit = (hourly: number) => hourly / (3600 * PROVISIONED_UTILIZATION);
  return {
    write: perUnit(PRICES.dynamoProvisionedWriteUnitHour),
    read: perUnit(PRICES.dynamoProvisionedReadUnitHour),
  };
}

export interface CostPerMillion {
  dynamoWrites: number;
  dynamoReads: number;
  sqs: number;
  lambdaRequests: number;
  lambdaDuration: number;
  total: number;
}

/** Dollars per million jobs, from the measured per-job counts and the list prices above. */
export function costPerMillion(costs: JobCosts, billing: TableBilling = 'on-demand'): CostPerMillion {
  const million = 1e6;
  const dynamo = unitPrices(billing);
  const workerGbSeconds =
    (costs.invocations * workerMsPerInvocation(costs) * ASSUMED_MEMORY_GB.worker) / 1000;
  const tickGbSeconds = (costs.tickMsPerJob * ASSUMED_MEMORY_GB.tick) / 1000;
  const parts = {
    dynamoWrites: costs.wru * dynamo.write * million,
    dynamoReads: costs.rru * dynamo.read * million,
    sqs: costs.sqsRequests * PRICES.sqsRequest * million,
    lambdaRequests: costs.invocations * PRICES.lambdaRequest * million,
    lambdaDuration: (workerGbSeconds + tickGbSeconds) * PRICES.lambdaGbSecondArm * million,
  };
  return { ...parts, total: Object.values(parts).reduce((sum, value) => sum + value, 0) };
}

/** EventBridge Scheduler: $1.00 per million invocations (the target's own cost not included). */
export const EVENTBRIDGE_SCHEDULER_PER_MILLION = PRICES.eventBridgeSchedulerInvocation * 1e6;
