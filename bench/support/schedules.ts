import type { DynamoDbStore } from '../../lib/adapters/dynamodb/dynamodb-store';
import type { EpochMs } from '../../lib/core/clock';
import type { JsonValue } from '../../lib/core/json';
import type { CoalescePolicy, ScheduleDefinition } from '../../lib/core/model/schedule';
import { compileTrigger, parseTrigger, type TriggerSpec } from '../../lib/core/triggers';
import { inParallel } from './parallel';

export interface IntervalSchedule {
  id: string;
  task: string;
  intervalSeconds: number;
  startAt: EpochMs;
  /** Inclusive; open when absent. */
  endAt?: EpochMs;
  coalesce: CoalescePolicy;
  misfireGraceSeconds: number | null;
}

/** An `interval` trigger (validated by the same parser as the admin API). */
export function intervalTrigger(schedule: IntervalSchedule): TriggerSpec {
  return parseTrigger({
    type: 'interval',
    seconds: schedule.intervalSeconds,
    start_at: new Date(schedule.startAt).toISOString(),
    ...(schedule.endAt === undefined ? {} : { end_at: new Date(schedule.endAt).toISOString() }),
  });
}

/** Every fire time the trigger defines in `[from, to]`. */
export function fireTimesBetween(trigger: TriggerSpec, from: EpochMs, to: EpochMs): EpochMs[] {
  const source = compileTrigger(trigger);
  const fires: EpochMs[] = [];
  for (let fire = source.next(from); fire !== undefined && fire <= to; fire = source.next(fire + 1)) {
    fires.push(fire);
  }
  return fires;
}

/** Adds the schedules through the store (as the admin API does), `concurrency` at a time. */
export async function seedSchedules<S extends IntervalSchedule>(
  store: DynamoDbStore,
  schedules: readonly S[],
  options: { concurrency?: number; payloadOf?: (schedule: S, n: number) => JsonValue } = {},
): Promise<void> {
  const payloadOf = options.payloadOf ?? ((_schedule: S, n: number) => ({ n }));
  const now = Date.now();
  await inParallel(schedules.length, options.concurrency ?? 32, async (n) => {
    const schedule = schedules[n] as S;
    const trigger = intervalTrigger(schedule);
    const definition: ScheduleDefinition = {
      id: schedule.id,
      task: schedule.task,
      trigger,
      payload: payloadOf(schedule, n),
      coalesce: schedule.coalesce,
      misfireGraceSeconds: schedule.misfireGraceSeconds,
      maxJitterSeconds: 0,
      tags: ['bench'],
      paused: false,
      keepFinished: false,
      maxRuns: null,
    };
    await store.addSchedule({
      schedule: definition,
      nextFireAt: compileTrigger(trigger).next(schedule.startAt) ?? null,
      conflictPolicy: 'exception',
      now,
    });
  });
}
