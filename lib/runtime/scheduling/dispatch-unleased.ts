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
 * Whether a plan goes through the lease: only when its schedule has `max_runs` (ADR 0005). Two
 * overlapping plans of one schedule state, missed fires included, together send nothing that the two
 * ticks in sequence would not; but with a cap on runs, two plans that coalesced to different missed fires
 * (or a plan of a later tick that coalesced a fire the earlier one sent on time) can run once more than
 * the runs left. Under the lease, plans of a capped schedule never overlap.
 */
export function needsLease(planned: PlannedDispatch): boolean {
  return planned.schedule.maxRuns !== null;
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
    seenCreatedAt: schedule.createdAt,
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
