import { describe, expect, it } from 'vitest';
import type { EpochMs } from '../../../lib/core/clock';
import type { TriggerSpec } from '../../../lib/core/triggers';
import { SECOND, T0 } from '../support';
import {
  type DispatchRuntime,
  dispatchRuntime,
  fireTimes,
  interval,
  MINUTE,
  once,
  ranOnceEach,
} from './dispatch-harness';

/** Schedules whose chains end: by their trigger (a date, an `end_at`) or by `max_runs`. */
const ENDINGS: { name: string; trigger: TriggerSpec; fields: Record<string, unknown>; fires: EpochMs[] }[] = [
  { name: 'a date trigger', trigger: once(T0 + 5 * MINUTE), fields: {}, fires: [T0 + 5 * MINUTE] },
  {
    name: 'an end_at',
    trigger: interval(10, T0 + 5 * MINUTE),
    fields: {},
    fires: fireTimes(interval(10), T0, T0 + 5 * MINUTE),
  },
  {
    name: 'max_runs',
    trigger: interval(10),
    fields: { max_runs: 25 },
    fires: fireTimes(interval(10), T0, T0 + 240 * SECOND),
  },
];

/** How the reader of a chain's last note stops: it does not, or it dies after the finish, or mid-send. */
type Death = 'none' | 'after the finish' | 'after part of the send';

/**
 * `ending` added through the admin API 10 minutes before T0, ticked a minute apart through T0 + 30 min
 * (its closing note is read in there, ADR 0011) with a worker running each fire as it comes. The reader of the chain's last note dies (stalls for
 * good, holding its shard lease until it runs out) at `death`. Records, at each send of a fire marked
 * final, whether its schedule read finished then.
 */
async function endingChain(ending: (typeof ENDINGS)[number], death: Death) {
  const runtime = dispatchRuntime();
  runtime.clock.set(T0 - 10 * MINUTE);
  await runtime.add('ending', ending.trigger, ending.fields);
  const finishedAtFinalSend: boolean[] = [];
  const died = deferred();
  const send = runtime.queue.send.bind(runtime.queue);
  runtime.queue.send = async (messages) => {
    const final = messages.some((message) => message.job.fireTime === ending.fires.at(-1));
    if (final) {
      finishedAtFinalSend.push((await runtime.store.getSchedule('ending'))?.nextFireAt === null);
    }
    const ofFinishedChain =
      messages.some((m) => m.job.scheduleId === 'ending') && (await isFinished(runtime));
    if (ofFinishedChain && death === 'after part of the send' && !died.done) {
      // The first half of the messages reached the queue (its first batch requests), then the process died
      await send(messages.slice(0, Math.ceil(messages.length / 2)));
      died.resolve();
      return new Promise(() => {});
    }
    return send(messages);
  };
  const finish = runtime.store.finishSchedule.bind(runtime.store);
  runtime.store.finishSchedule = async (input) => {
    const outcome = await finish(input);
    if (death === 'after the finish' && !died.done) {
      died.resolve();
      return new Promise(() => {});
    }
    return outcome;
  };
  let diedAt: EpochMs | undefined;
  for (let at = T0 - 10 * MINUTE; at <= T0 + 30 * MINUTE; at += MINUTE) {
    if (runtime.clock.now() < at) runtime.clock.set(at);
    const dying = !died.done;
    // The tick whose dispatcher dies never ends: the next one starts a minute later all the same
    await (dying ? Promise.race([runtime.tick(), died.promise]) : runtime.tick());
    if (dying && died.done) diedAt = at;
    await runtime.deliverDue(at);
  }
  await runtime.deliverDue(T0 + 35 * MINUTE);
  return { runtime, finishedAtFinalSend, diedAt };
}

async function isFinished(runtime: DispatchRuntime): Promise<boolean> {
  return (await runtime.store.getSchedule('ending'))?.nextFireAt === null;
}

describe('a chain that ends finishes its schedule before it sends its last fires (ADR 0008, 3)', () => {
  for (const ending of ENDINGS) {
    it(`by ${ending.name}: finished when its final fire is sent, each fire runs once, then it is removed`, async () => {
      const { runtime, finishedAtFinalSend } = await endingChain(ending, 'none');

      expect(finishedAtFinalSend).toEqual([true]);
      const sentTimes = runtime.sentOf('ending').map((s) => s.message.job.fireTime);
      expect(sentTimes).toEqual(ending.fires);
      expect(ranOnceEach(runtime.runs)).toEqual({ times: ending.fires, once: true });
      expect(await runtime.store.getSchedule('ending')).toBeUndefined();
      expect(await runtime.store.getFinishedScheduleRemoval('ending')).toMatchObject({
        lastFireAt: ending.fires.at(-1),
      });
      expect(runtime.publisher.events.filter((event) => event.type === 'schedule.finished')).toHaveLength(1);
      expect(runtime.summaries.reduce((sum, s) => sum + s.schedulesFinished, 0)).toBe(1);
    });

    for (const death of ['after the finish', 'after part of the send'] as const) {
      it(`by ${ending.name}: a reader that died ${death} leaves its note, and the next tick sends the final fires, nothing after`, async () => {
        const { runtime, finishedAtFinalSend, diedAt } = await endingChain(ending, death);

        // Assess: the reader died, and a tick after its shard lease ran out read the note again
        expect(diedAt).toBeDefined();
        expect(finishedAtFinalSend.every((finished) => finished)).toBe(true);
        const after = runtime.sentOf('ending').filter((s) => s.at > (diedAt as number));
        expect(after.length).toBeGreaterThan(0);
        // Every fire sent is one of the chain's, and each ran once (a copy is dropped at its claim)
        const distinct = [...new Set(runtime.sentOf('ending').map((s) => s.message.job.fireTime))];
        expect(distinct.sort((a, b) => (a as number) - (b as number))).toEqual(ending.fires);
        expect(ranOnceEach(runtime.runs)).toEqual({ times: ending.fires, once: true });
        if (death === 'after part of the send') {
          expect(runtime.sentOf('ending').length).toBeGreaterThan(distinct.length);
        }
        // Nothing after the last fire: no note beyond it but the closing note, and the schedule removed
        // after it ran
        const notes = await runtime.allNotes(T0 + 40 * MINUTE);
        const last = ending.fires.at(-1) as number;
        const beyond = notes.filter((n) => n.entry.scheduleId === 'ending' && n.entry.nextFireAt > last);
        expect(beyond.length).toBeGreaterThan(0);
        expect(beyond.filter((n) => n.entry.nextFireAt !== last + 1 || n.entry.lastFireAt !== last)).toEqual(
          [],
        );
        expect(await runtime.store.getSchedule('ending')).toBeUndefined();
        expect(await runtime.store.getFinishedScheduleRemoval('ending')).toMatchObject({ lastFireAt: last });
      });
    }
  }
});

describe('the final fire of a chain waits for the other fires of its plan', () => {
  for (const ending of ENDINGS.filter((e) => e.fires.length > 1)) {
    it(`by ${ending.name}: a fire of the last plan the queue refuses for minutes still runs, before the schedule is removed`, async () => {
      // Prepare: the queue refuses one fire of the chain's last plan until well after the final fire's time
      const runtime = dispatchRuntime();
      runtime.clock.set(T0 - 10 * MINUTE);
      await runtime.add('ending', ending.trigger, ending.fields);
      const refused = ending.fires.at(-3) as number;
      const last = ending.fires.at(-1) as number;
      runtime.queue.failWhen = (message) =>
        message.job.fireTime === refused && runtime.clock.now() < last + MINUTE;

      // Act: a tick a minute, a worker running each fire at its run time
      await runtime.tickEveryMinuteUntil(T0 + 15 * MINUTE, (at) => runtime.deliverDue(at + MINUTE - 1));

      // Assess: the final fire went out only after the refused one; every fire ran once, then the
      // schedule was removed
      const sentAt = (time: number) =>
        runtime.sentOf('ending').find((s) => s.message.job.fireTime === time)?.at;
      expect(sentAt(last)).toBeGreaterThanOrEqual(sentAt(refused) as number);
      expect(sentAt(refused)).toBeGreaterThanOrEqual(last + MINUTE);
      expect(ranOnceEach(runtime.runs)).toEqual({ times: ending.fires, once: true });
      expect(await runtime.store.getSchedule('ending')).toBeUndefined();
    });
  }
});

function deferred() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((settle) => {
    resolve = settle;
  });
  const state = {
    promise,
    done: false,
    resolve: () => {
      state.done = true;
      resolve();
    },
  };
  return state;
}
