import { describe, expect, it } from 'vitest';
import { costPerMillion, PRICES, unitPrices, workerWaitGbSecondsPerMillion } from '../../bench/report/prices';
import type { JobCosts } from '../../bench/support/costs';

const ONE_WRU_JOB: JobCosts = {
  jobs: 1,
  wru: 1,
  jobWru: 1,
  scheduleWru: 0,
  scheduleEndWru: 0,
  scheduleEndIndexWru: 0,
  otherWru: 0,
  indexWru: 0,
  failedWru: 0,
  rru: 1,
  sqsRequests: 0,
  sqsByAction: {},
  emptyReceives: 0,
  invocations: 0,
  workerMsPerInvocation: Number.NaN,
  workerWaitMsPerJob: Number.NaN,
  workerWaitMsPerInvocation: Number.NaN,
  tickMsPerJob: 0,
};

describe('DynamoDB prices per unit', () => {
  it('are the on-demand list prices per request unit', () => {
    expect(unitPrices('on-demand').write * 1e6).toBeCloseTo(0.625, 6);
    expect(unitPrices('on-demand').read * 1e6).toBeCloseTo(0.125, 6);
  });

  it('spread a provisioned unit-hour over the requests it serves at 70 % utilisation', () => {
    expect(unitPrices('provisioned').write * 1e6).toBeCloseTo((0.00065 / (3600 * 0.7)) * 1e6, 6);
    expect(unitPrices('provisioned').write * 1e6).toBeCloseTo(0.258, 3);
  });

  it('price a job by the billing mode of the table', () => {
    expect(costPerMillion(ONE_WRU_JOB).dynamoWrites).toBeCloseTo(0.625, 6);
    expect(costPerMillion(ONE_WRU_JOB, 'provisioned').dynamoWrites).toBeCloseTo(0.258, 3);
  });
});

describe('worker duration', () => {
  it('is priced from the measured wait for run times plus 50 ms of work per invocation (1 GB)', () => {
    // Batches of 10 jobs (0.1 invocations per job), each waiting 30 ms, or 950 ms, for its run time
    const batches = (waitMs: number): JobCosts => ({
      ...ONE_WRU_JOB,
      invocations: 0.1,
      workerWaitMsPerInvocation: waitMs,
    });

    expect(costPerMillion(batches(30)).lambdaDuration).toBeCloseTo(
      0.1 * 0.08 * PRICES.lambdaGbSecondArm * 1e6,
      6,
    );
    expect(costPerMillion(batches(950)).lambdaDuration).toBeCloseTo(
      0.1 * 1 * PRICES.lambdaGbSecondArm * 1e6,
      6,
    );
    expect(workerWaitGbSecondsPerMillion(batches(950))).toBeCloseTo(95_000, 6);
    expect(workerWaitGbSecondsPerMillion(batches(30))).toBeCloseTo(3_000, 6);
  });
});
