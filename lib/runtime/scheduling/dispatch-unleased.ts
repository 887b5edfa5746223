import type { Schedule } from '../../core/model/schedule';
import type { AdvanceOutcome } from '../../core/ports/schedule-store';
import {
  type DispatchDeps,
  type DispatchSummary,
  dispatchSummary,
  type PlannedDispatch,
  planDispatch,
  resumePoint,
  sendOrReportAllFailed,
} from './dispatch';

/**
 * Whether a plan dispatches a fire time at or before the instant it was made: a missed fire, which the
 * coalesce policy chose depending on `now`. Such a plan takes a lease (ADR 0005): two overlapping ticks
 * could choose different missed fires. A plan without one is a prefix of the schedule's fire sequence
 * from its stored next fire time, the same whichever tick makes it, and needs no lease.
 */
export function hasPastFire(planned: PlannedDispatch): boolean {
  const { nextFireAt } = planned.schedule;
  return nextFireAt !== null && nextFireAt <= planned.plannedAt;
}

/**
 * Whether a plan goes through the lease: it has a missed fire, or its schedule has `max_runs`. Two
 * lease-less plans of a capped schedule stay within the cap, but a lease-less plan and an overlapping
 * leased one (a later tick that found a missed fire) could together send one coalesced fire more
 * than the runs left (ADR 0005); under the lease, plans of a capped schedule never overlap.
 */
export function needsLease(planned: PlannedDispatch): boolean {
  return hasPastFire(planned) || planned.schedule.maxRuns !== null;
}

/**
 * Moves a schedule read without a lease on once its plan's messages were sent (`failed`: the job ids
 * that were not), in one write conditional on its next fire time and version as read.
 */
export async function advanceDispatched(
  deps: Pick<DispatchDeps, 'scheduleStore' | 'clock'>,
  planned: PlannedDispatch,
  failed: ReadonlySet<string>,
): Promise<DispatchSummary> {
  const { schedule } = planned;
  const resume = resumePoint(planned, failed);
  const seenNextFireAt = schedule.nextFireAt;
  if (seenNextFireAt === null) return dispatchSummary(planned, failed, 'released', resume);
  const outcome = await deps.scheduleStore.advanceSchedule({
    id: schedule.id,
    seenVersion: schedule.version,
    seenNextFireAt,
    ...resume,
    now: deps.clock.now(),
  });
  return dispatchSummary(planned, failed, asRelease(outcome), resume);
}

function asRelease(outcome: AdvanceOutcome): DispatchSummary['release'] {
  if (outcome === 'advanced') return 'released';
  if (outcome === 'lost') return 'lease_lost';
  return outcome;
}

/**
 * Dispatches one schedule as it was just read or written (the admin API's dispatch-on-write): without a
 * lease unless its plan needs one (`needsLease`), else undefined (the caller takes the lease path).
 */
export async function dispatchUnleasedSchedule(
  deps: DispatchDeps,
  schedule: Schedule,
): Promise<DispatchSummary | undefined> {
  const planned = planDispatch(deps, schedule);
  if (needsLease(planned)) return undefined;
  const failed = new Set(await sendOrReportAllFailed(deps.queue, planned.messages));
  return advanceDispatched(deps, planned, failed);
}
