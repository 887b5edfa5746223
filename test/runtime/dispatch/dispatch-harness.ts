import { expect } from 'vitest';
import type { EpochMs } from '../../../lib/core/clock';
import type { JsonValue } from '../../../lib/core/json';
import type { ScheduleDefinition } from '../../../lib/core/model/schedule';
import { bucketOf, DEFAULT_NOTE_GRID } from '../../../lib/core/planning/note-chunks';
import type { DueNote, DueNotesPosition } from '../../../lib/core/ports/due-notes';
import type { JobMessage } from '../../../lib/core/ports/job-queue';
import type { SchedulePosition } from '../../../lib/core/ports/schedule-store';
import { compileTrigger, type TriggerSpec } from '../../../lib/core/triggers';
import { createAdminApi } from '../../../lib/runtime/admin';
import type { RuntimeConfig } from '../../../lib/runtime/config';
import { ChainStarter } from '../../../lib/runtime/dispatch/chain-start';
import { dispatchDepsOf } from '../../../lib/runtime/dispatch/dispatch-deps';
import { adminDependencies } from '../../../lib/runtime/handlers/admin';
import { defineTask, type TaskOptions } from '../../../lib/runtime/tasks/define-task';
import { staticTaskRegistry } from '../../../lib/runtime/tasks/registry';
import { runTick, type TickSummary } from '../../../lib/runtime/tick/run-tick';
import { deliverDueMessages, SECOND, scheduleDefinition, seededRandom, sqsRecord, T0 } from '../support';
import { type HarnessOptions, workerHarness } from '../worker/harness';

export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;

/** Every `seconds` from T0 (through `endAt`), as the admin API takes it. */
export function interval(seconds: number, endAt?: EpochMs): TriggerSpec {
  return {
    type: 'interval',
    seconds,
    start_at: new Date(T0).toISOString(),
    ...(endAt !== undefined && { end_at: new Date(endAt).toISOString() }),
  } as unknown as TriggerSpec;
}

/** Once, at `at`. */
export function once(at: EpochMs): TriggerSpec {
  return { type: 'date', run_at: new Date(at).toISOString() } as unknown as TriggerSpec;
}

/** A message sent, by whom (the worker sends replacements and retries), and the clock when it was sent. */
export interface Sent {
  at: EpochMs;
  message: JobMessage;
  by: 'tick' | 'admin' | 'worker';
}

/** A run of the task `echo`: its schedule, fire time, payload, and the clock when its handler started. */
export interface Run {
  scheduleId: string | null;
  fireTime: number;
  payload: JsonValue;
  startedAt: EpochMs;
}

/**
 * The tick (with the deployed configuration: 8 dispatchers over the store's 16 shards, send phases
 * waited out on the manual clock), the admin API and a worker, over one in-memory store (or the stores
 * of `options`: `store` stays the in-memory one, `deps` has those) and queue. Schedules are added as the
 * admin API adds them (`add`: the item and its chain's first note in one write, the first fires sent by
 * the call when they come too soon for the tick). Every message sent is recorded in `sent` with the
 * clock at its send and its sender (a sender running while another does may be misnamed); the task
 * `echo` records its runs. Chain tokens come from a seeded random (`seededRandom`).
 */
export function dispatchRuntime(config: Partial<RuntimeConfig> = {}, options: HarnessOptions = {}) {
  const runs = new Map<number, Run[]>();
  const echo: TaskOptions = {
    handler: (payload, { fireTime, scheduleId }) => {
      const time = fireTime?.getTime() ?? 0;
      const run = {
        scheduleId,
        fireTime: time,
        payload: payload as JsonValue,
        startedAt: worker.clock.now(),
      };
      runs.set(time, [...(runs.get(time) ?? []), run]);
    },
  };
  const worker = workerHarness({ echo }, config, options);
  worker.deps.random = seededRandom();
  const sent: Sent[] = [];
  let by: Sent['by'] = 'tick';
  /** Runs `action` as `who`: what it sends is recorded as sent by it. */
  const as = async <T>(who: Sent['by'], action: () => Promise<T>): Promise<T> => {
    const before = by;
    by = who;
    try {
      return await action();
    } finally {
      by = before;
    }
  };
  const send = worker.queue.send.bind(worker.queue);
  worker.queue.send = async (messages) => {
    const at = worker.clock.now();
    const sender = by;
    const outcome = await send(messages);
    const failed = new Set(outcome.failed);
    for (const message of messages) if (!failed.has(message.job.id)) sent.push({ at, message, by: sender });
    return outcome;
  };
  const api = createAdminApi(
    adminDependencies(worker.deps, staticTaskRegistry({ echo: { default: defineTask(echo) } })),
  );
  /** An admin request that must succeed; its result. */
  const admin = async (request: Record<string, unknown>) => {
    const response = await as('admin', () => api(request));
    if (!response.ok) throw new Error(`${String(request.action)}: ${JSON.stringify(response.error)}`);
    return response.result as Record<string, unknown>;
  };
  const add = (id: string, trigger: TriggerSpec, fields: Record<string, unknown> = {}) =>
    admin({ action: 'add_schedule', id, task: 'echo', trigger, coalesce: 'all', ...fields });
  /**
   * Writes a schedule and its chain's first note as `add_schedule` does, and stops there: an admin call
   * that died after its write, before it sent the first fires it owed (ADR 0008, 1).
   */
  const addAndDie = async (id: string, trigger: TriggerSpec, overrides: Partial<ScheduleDefinition> = {}) => {
    const now = worker.clock.now();
    const position: SchedulePosition = {
      nextFireAt: compileTrigger(trigger).next(now) ?? null,
      lastFireAt: null,
      runs: 0,
    };
    const chains = new ChainStarter(dispatchDepsOf(worker.deps, now), worker.deps.newId);
    const planned = await chains.plan({ id, trigger, keepFinished: false }, position, 'died-after-write');
    await worker.deps.scheduleStore.addSchedule({
      schedule: scheduleDefinition(id, { trigger, coalesce: 'all', ...overrides }),
      position,
      ...(planned && { start: planned.start }),
      conflictPolicy: 'exception',
      now,
    });
    return planned;
  };
  const summaries: TickSummary[] = [];
  const tick = async () => {
    const summary = await runTick(worker.deps, {
      lastCounterRepairAt: worker.clock.now(),
    });
    summaries.push(summary);
    return summary;
  };
  /** Ticks a minute apart from the clock's time through `until` (the clock then stands a minute on). */
  const tickEveryMinuteUntil = async (until: EpochMs, between: (at: EpochMs) => Promise<void> = noop) => {
    let at = worker.clock.now();
    for (; at <= until; at += MINUTE) {
      if (worker.clock.now() < at) worker.clock.set(at);
      await tick();
      await between(at);
    }
    if (worker.clock.now() < at) worker.clock.set(at);
  };
  /**
   * Delivers every queued message due by `until` to the worker, in run-time order (and what those send:
   * replacements), each at its run time; the clock then stands at `until` or later.
   */
  const deliverDue = async (until: EpochMs) => {
    await deliverDueMessages(worker.queue, until, async (message) => {
      if (worker.clock.now() < message.job.runAt) worker.clock.set(message.job.runAt);
      await as('worker', () => worker.deliver([sqsRecord(message)]));
    });
    if (worker.clock.now() < until) worker.clock.set(until);
  };
  const sentOf = (scheduleId: string) => sent.filter((s) => s.message.job.scheduleId === scheduleId);
  /** Every note of every shard in the buckets from an hour before T0 through `now`'s. */
  const allNotes = async (now: EpochMs): Promise<DueNote[]> => {
    const notes: DueNote[] = [];
    const store = worker.deps.scheduleStore;
    for (let shard = 0; shard < store.dueShards; shard++) {
      let from: DueNotesPosition | undefined;
      do {
        const page = await store.readDueNotes({
          shard,
          afterBucket: bucketOf(DEFAULT_NOTE_GRID, T0) - 360,
          now,
          limit: 100,
          ...(from && { from }),
        });
        notes.push(...page.notes);
        from = page.next;
      } while (from);
    }
    return notes;
  };
  return {
    ...worker,
    sent,
    runs,
    summaries,
    admin,
    add,
    addAndDie,
    tick,
    tickEveryMinuteUntil,
    deliverDue,
    sentOf,
    allNotes,
  };
}

export type DispatchRuntime = ReturnType<typeof dispatchRuntime>;

async function noop(): Promise<void> {}

/** The fire times of `trigger` in `[from, through]`. */
export function fireTimes(trigger: TriggerSpec, from: EpochMs, through: EpochMs): EpochMs[] {
  const source = compileTrigger(trigger);
  const times: EpochMs[] = [];
  for (let next = source.next(from); next !== undefined && next <= through; next = source.next(next + 1)) {
    times.push(next);
  }
  return times;
}

/**
 * The distinct fires sent (dedupe at claim is by job id) are exactly the trigger's fires from `from`
 * through `through` (none lost, none outside the trigger), and each id names its fire.
 */
export function expectEveryFireOnce(
  sent: readonly Sent[],
  trigger: TriggerSpec,
  through: EpochMs,
  from: EpochMs = T0,
): void {
  const fires = new Map<string, EpochMs>();
  for (const { message } of sent) fires.set(message.job.id, message.job.fireTime as EpochMs);
  const sentTimes = [...new Set(fires.values())].filter((time) => time <= through).sort((a, b) => a - b);
  expect(sentTimes).toEqual(fireTimes(trigger, from, through));
  expect(fires.size).toBe(new Set(fires.values()).size);
  const all = fireTimes(trigger, from, Math.max(through, ...fires.values()));
  expect([...fires.values()].every((time) => all.includes(time))).toBe(true);
}

/** Each job id was sent once (no fire sent twice, not even a duplicate dropped at claim). */
export function expectSentOnceEach(sent: readonly Sent[]): void {
  const ids = sent.map((s) => s.message.job.id);
  expect(ids.length).toBe(new Set(ids).size);
}

/** The fire times that ran (of `scheduleId`, or of every schedule), in order, and whether each ran exactly once. */
export function ranOnceEach(
  runs: ReadonlyMap<number, Run[]>,
  scheduleId?: string,
): { times: number[]; once: boolean } {
  const of = [...runs.entries()]
    .map(
      ([time, list]) =>
        [time, list.filter((run) => scheduleId === undefined || run.scheduleId === scheduleId)] as const,
    )
    .filter(([, list]) => list.length > 0);
  return {
    times: of.map(([time]) => time).sort((a, b) => a - b),
    once: of.every(([, list]) => list.length === 1),
  };
}
