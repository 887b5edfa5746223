import { describe, expect, it } from 'vitest';
import { emptyTotals } from '../../bench/support/capacity-meter';
import { jobCosts, withoutScheduleEnds, withRemovalsFrom } from '../../bench/support/costs';

const units = (writeUnits: number, indexWriteUnits = 0) => ({
  ...emptyTotals(),
  writeUnits,
  indexWriteUnits,
});
const POLLERS = {
  invocations: 10,
  messages: 100,
  busyMs: 1000,
  waitMs: { perMessage: 0, perInvocation: 0 },
  pollErrors: 0,
};

describe('cost per job', () => {
  const costs = jobCosts({
    jobs: 100,
    capacity: {
      total: units(300 + 30 + 50 + 4, 100 + 20 + 20),
      job: units(300, 100),
      schedule: units(30, 20),
      scheduleEnd: units(50, 20),
      other: units(4),
    },
    sqs: {},
    pollers: POLLERS,
    tickMs: 0,
  });

  it('splits write units between the job, the schedule, its end and the rest', () => {
    expect(costs).toMatchObject({
      wru: 3.84,
      jobWru: 3,
      scheduleWru: 0.3,
      scheduleEndWru: 0.5,
      scheduleEndIndexWru: 0.2,
      otherWru: 0.04,
      indexWru: 1.4,
    });
  });

  it('leaves the once-per-schedule removal out of a steady load, and nothing else', () => {
    expect(withoutScheduleEnds(costs)).toEqual({
      ...costs,
      wru: costs.wru - 0.5,
      indexWru: costs.indexWru - 0.2,
      scheduleEndWru: 0,
      scheduleEndIndexWru: 0,
    });
  });
});

describe('a run whose schedules are removed after its last job', () => {
  const fires = {
    total: units(300 + 30 + 10 + 4, 100),
    job: units(300, 100),
    schedule: units(30),
    scheduleEnd: units(10),
    other: units(4),
  };
  // The closing notes removed the rest later, while the idle ticks wrote their shard leases and cursors
  const end = {
    total: units(300 + 90 + 60 + 40, 130),
    job: units(300, 100),
    schedule: units(90),
    scheduleEnd: units(60, 30),
    other: units(40),
  };

  it('counts every removal, and none of the idle writes after the last job', () => {
    expect(withRemovalsFrom(fires, end)).toEqual({
      ...fires,
      scheduleEnd: units(60, 30),
      total: units(300 + 30 + 60 + 4, 130),
    });
  });
});
