import type { EpochMs } from '../clock';
import { scheduleJobId } from '../model/job-id';
import type { CoalescePolicy } from '../model/schedule';
import type { FireTimeSource } from '../triggers';
import { jitteredRunAt } from './jitter';
import { latestFireTime } from './latest-fire';
import type { FirePolicies } from './policies';

/** One fire time to dispatch as a job. */
export interface PlannedFire {
  /** `<scheduleId>@<fireTime>`: the same fire always gets the same job id, so a re-plan is deduplicated. */
  jobId: string;
  fireTime: EpochMs;
  /** Fire time plus jitter. */
  runAt: EpochMs;
  /** `runAt + misfireGraceSeconds`, or null for no deadline. */
  startDeadline: EpochMs | null;
}

/**
 * The fire times from `nextFireAt` up to `now` (all missed) that the coalesce policy keeps, and the
 * instant from which a plan continues after them.
 */
export function missedFireTimes(
  source: FireTimeSource,
  nextFireAt: EpochMs,
  now: EpochMs,
  coalesce: CoalescePolicy,
  maxFires: number,
): { fireTimes: EpochMs[]; resumeFrom: EpochMs; coalesced: boolean } {
  switch (coalesce) {
    case 'earliest': {
      const after = source.next(nextFireAt + 1);
      return { fireTimes: [nextFireAt], resumeFrom: now + 1, coalesced: after !== undefined && after <= now };
    }
    case 'latest': {
      const latest = latestFireTime(source, nextFireAt, now) ?? nextFireAt;
      return { fireTimes: [latest], resumeFrom: now + 1, coalesced: latest !== nextFireAt };
    }
    case 'all': {
      const fireTimes: EpochMs[] = [];
      let candidate: EpochMs | undefined = nextFireAt;
      while (candidate !== undefined && candidate <= now && fireTimes.length < maxFires) {
        fireTimes.push(candidate);
        candidate = source.next(candidate + 1);
      }
      const resumeFrom = (fireTimes.at(-1) ?? nextFireAt) + 1;
      return { fireTimes, resumeFrom, coalesced: false };
    }
  }
}

/**
 * The jobs of `fireTimes` (ascending), each jittered before the fire that follows it: the next in the
 * list, or `following` (the first fire time a later plan dispatches) for the last.
 */
export function plannedFires(
  input: { scheduleId: string; policies: FirePolicies; random: () => number },
  fireTimes: readonly EpochMs[],
  following: EpochMs | undefined,
): PlannedFire[] {
  const grace = input.policies.misfireGraceSeconds;
  return fireTimes.map((fireTime, index) => {
    const runAt = jitteredRunAt(
      fireTime,
      fireTimes[index + 1] ?? following,
      input.policies.maxJitterSeconds,
      input.random,
    );
    return {
      jobId: scheduleJobId(input.scheduleId, fireTime),
      fireTime,
      runAt,
      startDeadline: grace === null ? null : runAt + grace * 1000,
    };
  });
}
