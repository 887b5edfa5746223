import { describe, expect, it } from 'vitest';
import { wakeForNextStart } from '../../../lib/runtime/flow/rate-wake';
import { jobRequest, T0, testRuntime } from '../support';

const RATE = { max: 1, perSeconds: 10 };

/**
 * A waker wakes the line of task `rated` for its next start while the line is empty; as it gives back
 * its `joinsAt`-th booking (one that found nobody), job c joins the line, and c's own booking for that
 * start is refused. Returns whether c joined and whether it was left waiting, not woken.
 */
async function joinDuringBooking(joinsAt: number) {
  const { deps, store } = testRuntime();
  await store.claimJob({
    job: jobRequest('a', { task: 'rated' }),
    attempt: 1,
    owner: 'worker-a',
    now: T0,
    leaseUntil: T0 + 60_000,
    rateLimit: RATE,
  });
  const releaseRateWake = store.releaseRateWake.bind(store);
  let releases = 0;
  let joined = false;
  store.releaseRateWake = async (task, at) => {
    releases += 1;
    if (releases === joinsAt) {
      await store.joinLine({ message: { job: jobRequest('c', { task: 'rated' }), attempt: 1 }, now: T0 });
      joined = !(await store.bookRateWake(task, at, 'joiner'));
    }
    return releaseRateWake(task, at);
  };
  const slots = await store.taskSlots('rated');
  if (slots) await wakeForNextStart(deps, slots);
  return { joined, leftWaiting: (await store.lineHead('rated')) !== undefined };
}

describe('waking a rate-limited line for its next start', () => {
  it('never leaves a job waiting that joined while a booking that found nobody stood, whichever it was', async () => {
    // Act: c joins as the first, second or third booking is given back (if there are that many)
    const outcomes = [];
    for (const joinsAt of [1, 2, 3]) outcomes.push(await joinDuringBooking(joinsAt));

    // Assess: c was refused by a booking at least once, and never left waiting unwoken
    expect(outcomes.some((outcome) => outcome.joined)).toBe(true);
    expect(outcomes.map((outcome) => outcome.leftWaiting)).toEqual([false, false, false]);
  });
});
