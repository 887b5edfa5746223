import type { EpochMs } from '../../lib/core/clock';
import { fireTimesBetween, type IntervalSchedule, intervalTrigger } from '../support/schedules';

/**
 * The soak's tasks: one without a limit, two with `maxRunningJobs`. The limited ones get a share of the
 * schedules up to a fixed number, so their load stays within what their slots carry whatever `--schedules`
 * is (a backlog on a limited task waits in growing slot waits of up to 300 s, longer than a drain).
 */
export const SOAK_TASKS = {
  free: { maxRunningJobs: undefined, share: 0.82, maxSchedules: Number.POSITIVE_INFINITY, minInterval: 0 },
  limited: { maxRunningJobs: 10, share: 0.15, maxSchedules: 30, minInterval: 0 },
  single: { maxRunningJobs: 1, share: 0.03, maxSchedules: 6, minInterval: 10 },
} as const;

export type SoakTask = keyof typeof SOAK_TASKS;

/**
 * `count` interval schedules (seconds-level), start times spread over their interval, firing from
 * `startAt` to `endAt` (inclusive). Coalesce 'all' with an hour of misfire grace: every fire must run.
 */
export function soakSchedules(
  count: number,
  intervals: readonly number[],
  startAt: EpochMs,
  endAt: EpochMs,
  random: () => number,
): IntervalSchedule[] {
  const tasks = Object.entries(SOAK_TASKS) as [SoakTask, (typeof SOAK_TASKS)[SoakTask]][];
  const assigned = new Map<SoakTask, number>();
  return Array.from({ length: count }, (_, n) => {
    const intervalSeconds = intervals[n % intervals.length] as number;
    const pick = random();
    let cumulative = 0;
    const chosen =
      tasks.find(([, options]) => {
        cumulative += options.share;
        return pick < cumulative;
      })?.[0] ?? 'free';
    const task = (assigned.get(chosen) ?? 0) < SOAK_TASKS[chosen].maxSchedules ? chosen : 'free';
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
    };
  });
}

/** The job ids every fire of every schedule must produce (`<scheduleId>@<fireTime>`). */
export function expectedJobIds(schedules: readonly IntervalSchedule[]): Set<string> {
  const ids = new Set<string>();
  for (const schedule of schedules) {
    const fires = fireTimesBetween(
      intervalTrigger(schedule),
      schedule.startAt,
      schedule.endAt ?? schedule.startAt,
    );
    for (const fire of fires) ids.add(`${schedule.id}@${fire}`);
  }
  return ids;
}
