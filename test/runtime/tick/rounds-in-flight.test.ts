import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../lib/adapters/memory/memory-store';
import { ManualClock } from '../../../lib/core/clock';
import type { JobMessage, JobQueue } from '../../../lib/core/ports/job-queue';
import type { ScheduleStore } from '../../../lib/core/ports/schedule-store';
import type { TriggerSpec } from '../../../lib/core/triggers';
import { createLogger } from '../../../lib/runtime/observability/logger';
import type { DispatchDeps } from '../../../lib/runtime/scheduling/dispatch';
import { dispatchDueSchedules } from '../../../lib/runtime/tick/dispatch-due';
import { SECOND, scheduleDefinition, T0 } from '../support';

/** A queue whose sends each take a few ms of real time (a round waiting for its phases), counted. */
class SlowQueue implements JobQueue {
  readonly sent: JobMessage[] = [];
  sends = 0;
  inFlight = 0;
  mostInFlight = 0;
  failing = false;

  async send(messages: readonly JobMessage[]): Promise<{ failed: string[] }> {
    this.sends += 1;
    this.inFlight += 1;
    this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
    await new Promise((resolve) => setTimeout(resolve, 5));
    this.inFlight -= 1;
    if (this.failing) return { failed: messages.map((message) => message.job.id) };
    this.sent.push(...messages);
    return { failed: [] };
  }

  async changeVisibility(): Promise<void> {}
}

function hourlyFrom(start: number): TriggerSpec {
  return { type: 'interval', hours: 1, start_at: new Date(start).toISOString() };
}

async function addDue(store: MemoryStore, count: number, trigger: (index: number) => TriggerSpec) {
  for (let index = 0; index < count; index++) {
    await store.addSchedule({
      schedule: scheduleDefinition(`schedule-${String(index).padStart(2, '0')}`, { trigger: trigger(index) }),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: T0 - 400,
    });
  }
}

function dispatch(store: ScheduleStore, queue: JobQueue, roundsInFlight: number, maxFiresPerPlan = 1000) {
  const deps: DispatchDeps = {
    scheduleStore: store,
    queue,
    clock: new ManualClock(T0 - 400),
    random: () => 0.5,
    limits: { lookaheadMs: 90 * SECOND, maxFiresPerPlan },
  };
  return dispatchDueSchedules(deps, {
    owner: 'tick',
    stopAcquiringAt: T0 + 60 * SECOND,
    leaseMs: 60 * SECOND,
    batchSize: 5,
    concurrency: 2,
    roundsInFlight,
    logger: createLogger({ level: 'error', sink: () => {} }),
  });
}

function sentIds(queue: SlowQueue): string[] {
  return queue.sent.map((message) => message.job.id).sort();
}

describe('tick: rounds in flight', () => {
  it('works on up to roundsInFlight rounds at once, and sends and moves on each schedule once', async () => {
    // Prepare: 40 hourly schedules due at T0, rounds of 5
    const store = new MemoryStore();
    await addDue(store, 40, () => hourlyFrom(T0));
    const queue = new SlowQueue();

    // Act
    const totals = await dispatch(store, queue, 3);

    // Assess: three sends overlapped, never more; no schedule read by two rounds
    expect(queue.mostInFlight).toBe(3);
    expect(queue.sends).toBe(8);
    expect(new Set(sentIds(queue)).size).toBe(40);
    expect(totals).toMatchObject({ schedulesProcessed: 40, jobsEnqueued: 40, leasesLost: 0, errors: 0 });
    const schedules = await store.listSchedules({}, { limit: 100 });
    expect(schedules.items.every((schedule) => schedule.nextFireAt === T0 + 3600 * SECOND)).toBe(true);
  });

  it('keeps reading while a round is in flight: a schedule still due after its round is sent on', async () => {
    // Prepare: one schedule firing every second; a plan sends at most 10 of the 90 fires in the window
    const store = new MemoryStore();
    await addDue(store, 1, () => ({ type: 'interval', seconds: 1, start_at: new Date(T0).toISOString() }));
    const queue = new SlowQueue();

    // Act: the reads made while its round is in flight find nothing (the round holds the schedule)
    const totals = await dispatch(store, queue, 4, 10);

    // Assess: every fire in the window was sent, each once
    const expected = Array.from({ length: 90 }, (_, second) => `schedule-00@${T0 + second * SECOND}`).sort();
    expect(sentIds(queue)).toEqual(expected);
    expect(totals).toMatchObject({ jobsEnqueued: 90, leasesLost: 0, errors: 0 });
    expect(queue.mostInFlight).toBe(1);
  });

  it('starts no round after the queue failed as a whole; the rounds in flight leave their schedules due', async () => {
    // Prepare: the queue refuses everything
    const store = new MemoryStore();
    await addDue(store, 21, () => hourlyFrom(T0));
    const queue = new SlowQueue();
    queue.failing = true;

    // Act
    const totals = await dispatch(store, queue, 2);

    // Assess: the two rounds in flight were tried, nothing after them; every schedule resumes at T0
    expect(queue.sends).toBe(2);
    expect(totals).toMatchObject({ jobsEnqueued: 0, sendFailures: 10 });
    const schedules = await store.listSchedules({}, { limit: 100 });
    expect(
      schedules.items.every((schedule) => schedule.nextFireAt === T0 && schedule.leaseOwner === null),
    ).toBe(true);
  });

  it('lets the rounds in flight finish before a failed read surfaces', async () => {
    // Prepare: the second read fails while the first round is sending
    const store = new MemoryStore();
    await addDue(store, 10, () => hourlyFrom(T0));
    const queue = new SlowQueue();
    let reads = 0;
    const failingSecondRead: ScheduleStore = Object.create(store, {
      readDueSchedules: {
        value: async (input: Parameters<ScheduleStore['readDueSchedules']>[0]) => {
          reads += 1;
          if (reads === 2) throw new Error('store unavailable');
          return store.readDueSchedules(input);
        },
      },
    });

    // Act
    const failure = await dispatch(failingSecondRead, queue, 4).catch((error: unknown) => error);

    // Assess: the error surfaces, after the first round's five schedules were sent and moved on
    expect(failure).toEqual(new Error('store unavailable'));
    expect(queue.sent).toHaveLength(5);
    const schedules = await store.listSchedules({}, { limit: 100 });
    const movedOn = schedules.items.filter((schedule) => schedule.nextFireAt === T0 + 3600 * SECOND);
    expect(movedOn.map((schedule) => schedule.id)).toEqual(
      queue.sent.map((message) => message.job.scheduleId),
    );
  });
});
