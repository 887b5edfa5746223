import type { EpochMs } from '../../lib/core/clock';
import { LIMITS } from '../../lib/core/limits';
import { fireTimesBetween, type IntervalSchedule, intervalTrigger } from '../support/schedules';

/**
 * The soak's tasks: one without a limit, two with `maxRunningJobs`, and one whose results expire after a
 * second (so messages redriven from the DLQ arrive after the result is gone). The limited ones get a share
 * of the schedules up to a fixed number, so their load stays within what their slots carry whatever
 * `--schedules` is. `backlog` gets none of the random schedules: it is fed faster than its two slots
 * drain (bench/soak/backlog.ts). Handlers work `workMs` (a range).
 */
export const SOAK_TASKS = {
  free: {
    maxRunningJobs: undefined,
    resultTtlSeconds: undefined,
    share: 0.72,
    maxSchedules: Infinity,
    minInterval: 0,
    workMs: [5, 50],
  },
  ephemeral: {
    maxRunningJobs: undefined,
    resultTtlSeconds: 1,
    share: 0.1,
    maxSchedules: Infinity,
    minInterval: 0,
    workMs: [5, 50],
  },
  limited: {
    maxRunningJobs: 10,
    resultTtlSeconds: undefined,
    share: 0.15,
    maxSchedules: 30,
    minInterval: 0,
    workMs: [5, 50],
  },
  single: {
    maxRunningJobs: 1,
    resultTtlSeconds: undefined,
    share: 0.03,
    maxSchedules: 6,
    minInterval: 10,
    workMs: [5, 50],
  },
  backlog: {
    maxRunningJobs: 2,
    resultTtlSeconds: undefined,
    share: 0,
    maxSchedules: 0,
    minInterval: 0,
    workMs: [300, 500],
  },
} as const;

export type SoakTask = keyof typeof SOAK_TASKS;

/** A soak schedule's payload: its number, the revision the soak's updates bump, and padding. */
export interface SoakPayload {
  n: number;
  rev: number;
  pad: string;
}

export interface SoakSchedule extends IntervalSchedule {
  task: SoakTask;
  /** The payload's size as UTF-8 JSON, from a few bytes up to the API's limit. */
  payloadBytes: number;
  /** Paused, resumed, updated or removed while the soak runs. */
  churn: boolean;
}

/** Payload sizes: most small, some up to the limit (a 125 KB payload must not block other messages). */
function payloadBytesOf(random: () => number): number {
  const pick = random();
  if (pick < 0.75) return 40 + Math.floor(random() * 200);
  if (pick < 0.93) return 1_024 + Math.floor(random() * 15 * 1_024);
  return LIMITS.payloadBytes - Math.floor(random() * 96 * 1_024);
}

export function soakPayload(schedule: Pick<SoakSchedule, 'id' | 'payloadBytes'>, rev: number): SoakPayload {
  const n = Number(schedule.id.slice(schedule.id.lastIndexOf('-') + 1));
  const bare = JSON.stringify({ n, rev, pad: '' }).length;
  return { n, rev, pad: 'x'.repeat(Math.max(0, schedule.payloadBytes - bare)) };
}

/**
 * `count` interval schedules (seconds-level), start times spread over their interval, firing from
 * `startAt` to `endAt` (inclusive). Coalesce 'all' with an hour of misfire grace: every fire must run.
 * `churnCount` of them (free, every 1–2 s) are changed through the admin API while the soak runs.
 */
export function soakSchedules(
  count: number,
  churnCount: number,
  intervals: readonly number[],
  startAt: EpochMs,
  endAt: EpochMs,
  random: () => number,
): SoakSchedule[] {
  const tasks = Object.entries(SOAK_TASKS) as [SoakTask, (typeof SOAK_TASKS)[SoakTask]][];
  const assigned = new Map<SoakTask, number>();
  return Array.from({ length: count }, (_, n) => {
    const churn = n < churnCount;
    const intervalSeconds = churn ? 1 + (n % 2) : (intervals[n % intervals.length] as number);
    const pick = random();
    let cumulative = 0;
    const chosen =
      tasks.find(([, options]) => {
        cumulative += options.share;
        return pick < cumulative;
      })?.[0] ?? 'free';
    const task = churn || (assigned.get(chosen) ?? 0) >= SOAK_TASKS[chosen].maxSchedules ? 'free' : chosen;
    assigned.set(task, (assigned.get(task) ?? 0) + 1);
    const interval = Math.max(intervalSeconds, SOAK_TASKS[task].minInterval);
    return {
      id: `soak-${n}`,
      task,
      intervalSeconds: interval,
      startAt: startAt + Math.floor(random() * interval * 1000),
      endAt,
      coalesce: 'all',
      misfireGraceSeconds: 3_600,
      payloadBytes: payloadBytesOf(random),
      churn,
    };
  });
}

/** The job ids every fire of `schedule` would produce between its start and end (`<scheduleId>@<fireTime>`). */
export function fireJobIds(schedule: IntervalSchedule): { id: string; fireTime: EpochMs }[] {
  return fireTimesBetween(
    intervalTrigger(schedule),
    schedule.startAt,
    schedule.endAt ?? schedule.startAt,
  ).map((fireTime) => ({ id: `${schedule.id}@${fireTime}`, fireTime }));
}

/** The job ids every fire of the schedules that nobody changes must produce. */
export function expectedJobIds(schedules: readonly SoakSchedule[]): Set<string> {
  const ids = new Set<string>();
  for (const schedule of schedules) {
    if (schedule.churn) continue;
    for (const { id } of fireJobIds(schedule)) ids.add(id);
  }
  return ids;
}
