import { describe, expect, it } from 'vitest';
import { startIntervalMs } from '../../../lib/core/model/rate-limit';
import { WOKEN_RESEND_MS } from '../../../lib/core/ports/waiting-line';
import { repairLines } from '../../../lib/runtime/flow/idle-lines';
import { joinWaitingLine } from '../../../lib/runtime/flow/join-line';
import { wakeForNextStart } from '../../../lib/runtime/flow/rate-wake';
import { jobRequest, T0, testRuntime } from '../support';

const RATE = { max: 1, perSeconds: 10 };

/** Task `rated` started job `a` at T0; its next start comes one interval later. */
async function startedAtT0() {
  const runtime = testRuntime();
  await runtime.store.claimJob({
    job: jobRequest('a', { task: 'rated' }),
    attempt: 1,
    owner: 'worker-a',
    now: T0,
    leaseUntil: T0 + 60_000,
    rateLimit: RATE,
  });
  return { ...runtime, nextStart: T0 + startIntervalMs(RATE) };
}

const rated = (id: string) => ({ job: jobRequest(id, { task: 'rated', runAt: T0 }), attempt: 1 });

/**
 * A waker wakes the line of task `rated` for its next start while the line is empty; as it gives back
 * its `joinsAt`-th booking (one that found nobody), job c joins the line, and c's own booking for that
 * start is refused. Returns whether c joined and whether it was left waiting, not woken.
 */
async function joinDuringBooking(joinsAt: number) {
  const { deps, store } = await startedAtT0();
  const releaseRateWake = store.releaseRateWake.bind(store);
  let releases = 0;
  let joined = false;
  store.releaseRateWake = async (task, at) => {
    releases += 1;
    if (releases === joinsAt) {
      await store.joinLine({ message: { job: jobRequest('c', { task: 'rated' }), attempt: 1 }, now: T0 });
      joined = !(await store.bookRateWake({ task, at, token: 'joiner', now: T0 }));
    }
    return releaseRateWake(task, at);
  };
  const slots = await store.taskSlots('rated');
  if (slots) await wakeForNextStart(deps, slots);
  return { joined, leftWaiting: (await store.lineHead('rated')) !== undefined };
}

describe('waking a rate-limited line for its next start', () => {
  it('wakes one job for a start that has come, however many join after it came and before it is taken', async () => {
    // Prepare: the next start came 2 s ago and nobody has taken it (the store was slow)
    const { deps, clock, queue, nextStart } = await startedAtT0();
    clock.set(nextStart + 2_000);

    // Act: ten jobs, refused before the start came, join one after the other
    for (let n = 0; n < 10; n++) {
      await joinWaitingLine(deps, rated(`job-${n}`));
      clock.advance(100);
    }

    // Assess: one wake-up for that start, sent at once
    expect(queue.sent.map((message) => [message.job.id, message.delaySeconds])).toEqual([['job-0', 0]]);
  });

  it('lets the tick wake the line again once the booking of a waker that died before waking is stale, and not before', async () => {
    // Prepare: a waker booked the start that has come, then died before it woke anyone
    const { deps, store, clock, queue, nextStart } = await startedAtT0();
    await store.joinLine({ message: rated('b'), now: T0 });
    clock.set(nextStart + 1_000);
    await store.bookRateWake({ task: 'rated', at: nextStart, token: 'died', now: clock.now() });

    // Act: the tick repairs the line at once, then once the booking is stale
    clock.advance(WOKEN_RESEND_MS - 1);
    await repairLines(deps);
    const whileFresh = queue.sent.length;
    clock.advance(2);
    await repairLines(deps);

    // Assess
    expect(whileFresh).toBe(0);
    expect(queue.sent.map((message) => message.job.id)).toEqual(['b']);
  });

  it('never leaves a job waiting that joined while a booking that found nobody stood, whichever it was', async () => {
    // Act: c joins as the first, second or third booking is given back (if there are that many)
    const outcomes = [];
    for (const joinsAt of [1, 2, 3]) outcomes.push(await joinDuringBooking(joinsAt));

    // Assess: c was refused by a booking at least once, and never left waiting unwoken
    expect(outcomes.some((outcome) => outcome.joined)).toBe(true);
    expect(outcomes.map((outcome) => outcome.leftWaiting)).toEqual([false, false, false]);
  });

  it("sends at once a job's retry that its own wake moved into the woken entry of its earlier attempt", async () => {
    // Prepare: b attempt 1 was woken for the next start, but its message waits behind a backlog; b ran
    // from a plain delivery meanwhile and failed, and its retry comes once the booking is stale
    const { deps, store, clock, queue, nextStart } = await startedAtT0();
    await store.joinLine({ message: rated('b'), now: T0 });
    clock.set(nextStart);
    const slots = await store.taskSlots('rated');
    if (slots) await wakeForNextStart(deps, slots);
    clock.advance(WOKEN_RESEND_MS + 1_000);
    const sentBefore = queue.sent.length;

    // Act
    await joinWaitingLine(deps, { ...rated('b'), attempt: 2 });

    // Assess: the retry's message went at once, and nothing is left waiting behind the woken entry
    const sentByJoin = queue.sent.slice(sentBefore);
    expect(sentByJoin.map((message) => [message.job.id, message.attempt, message.woken])).toContainEqual([
      'b',
      2,
      true,
    ]);
    expect(await store.lineHead('rated')).toBeUndefined();
    expect(await store.overdueWoken('rated', clock.now())).toEqual([]);
  });
});
