import { describe, expect, it } from 'vitest';
import type { MemoryScheduleStore } from '../../lib/adapters/memory/memory-schedules';
import { runOptionsOf } from '../../sim/profile';
import { simulate } from '../../sim/run';

// A small run: seconds, yet every task, fault and admin change of the full budget (`npm run simulate`).
const SMALL = { steadySchedules: 10, churnedSchedules: 3, minutes: 4 };
/** How many small seeds the cancellation check tries at most. */
const CANCEL_SEEDS = 24;
const STARTED_AFTER_CANCEL = /started attempt \d+ after cancel_job asked it to stop while attempt \d+ ran/;

describe('the simulation', () => {
  it('runs a seed to the end with every promise kept, and the same seed runs the same way again', async () => {
    // Seed 3 is a stormy one (faults, crashes): the run must still end clean.
    const first = await simulate(runOptionsOf(3, SMALL));
    const again = await simulate(runOptionsOf(3, SMALL));
    expect(first.violations).toEqual([]);
    expect(first.crashes).toBeGreaterThan(0);
    expect(first.fires).toBeGreaterThan(20);
    expect(again).toEqual(first);
  });

  it('finds a slot left free while jobs wait when the store never hands a slot on nor wakes a line', async () => {
    const broken = await simulate({
      ...runOptionsOf(1, SMALL),
      adjustStore(store) {
        // Every slot that comes back goes back to the counter, and nothing wakes a line
        const handOff = Reflect.get(store, 'handOff') as { slotBack: (task: string) => undefined };
        const slots = Reflect.get(store, 'slots') as { giveBack: (task: string) => void };
        handOff.slotBack = (task) => {
          slots.giveBack(task);
          return undefined;
        };
        store.wakeHeads = async () => [];
      },
    });
    expect(broken.violations.join('\n')).toMatch(/a slot of '\w+' stood free for \d+ ms/);
  });

  it('finds a capped schedule that ends short of max_runs when one start is counted twice', async () => {
    let countedTwice = false;
    const broken = await simulate({
      ...runOptionsOf(1, SMALL),
      adjustStore(store) {
        const schedules = Reflect.get(store, 'schedules') as MemoryScheduleStore;
        const startCappedRun = store.startCappedRun.bind(store);
        store.startCappedRun = async (input) => {
          const outcome = await startCappedRun(input);
          if (outcome === 'started' && !countedTwice && input.scheduleId.startsWith('capped-')) {
            countedTwice = true;
            schedules.countStartedRun(input, true);
          }
          return outcome;
        };
      },
    });
    expect(countedTwice).toBe(true);
    expect(broken.violations.join('\n')).toMatch(/capped-\d: 19 fires ran, max_runs 20/);
  });

  it('finds a job that runs again after cancel_job asked it to stop, when a claim forgets the request', async () => {
    // Only some seeds ask a job to stop while a later attempt of it is on its way: the first of a few
    // that does must see it (any change to the order of the platform's calls moves which one)
    const violations: string[] = [];
    for (let seed = 1; seed <= CANCEL_SEEDS; seed++) {
      const broken = await simulate({
        ...runOptionsOf(seed, SMALL),
        adjustStore(store) {
          const claimJob = store.claimJob.bind(store);
          store.claimJob = async (input) => {
            const outcome = await claimJob(input);
            if (outcome.status === 'claimed') delete outcome.job.cancelRequestedAt;
            return outcome;
          };
        },
      });
      violations.push(...broken.violations);
      if (violations.some((violation) => STARTED_AFTER_CANCEL.test(violation))) break;
    }
    expect(violations.join('\n')).toMatch(STARTED_AFTER_CANCEL);
  }, 120_000);
});
