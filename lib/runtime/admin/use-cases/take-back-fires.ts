import type { EpochMs } from '../../../core/clock';
import type { Schedule } from '../../../core/model/schedule';
import { capAtMaxRuns, type FirePlan, type PlannedFire, planFires } from '../../../core/planning';
import {
  CHANGE_SETTLE_MS,
  CLOCK_SKEW_MS,
  firesBetween,
  firesSentAhead,
} from '../../../core/planning/fires-sent-ahead';
import type { FiresTakenBack } from '../../../core/ports/schedule-store';
import { compileTrigger, type TriggerSpec } from '../../../core/triggers';
import { scheduleFireMessage } from '../../scheduling/job-messages';
import type { ActionContext } from '../context';

/** How often a change re-reads a schedule that ticks kept dispatching further while it was changed. */
export const MOVED_ATTEMPTS = 5;

/**
 * What a pause, a new trigger or a replace made now takes back out of `runs` in its own write (ADR
 * 0004), for a schedule with `max_runs` (`limited`, as it is after the change): the fires `schedule`
 * sent ahead that are due after the call's settle margin. They never run (their check reads the changed
 * schedule), and the fires sent in their place are counted when they are dispatched. One due sooner may
 * have run and stays counted: the changed schedule plans after it (`nextFireAfterChange`). Undefined without
 * a limit.
 */
export function takeBackOf(
  schedule: Schedule,
  context: ActionContext,
  limited = schedule.maxRuns !== null,
): FiresTakenBack | undefined {
  if (!limited) return undefined;
  const { count, lastCounted } = firesSentAhead(schedule, context.now + CHANGE_SETTLE_MS);
  // Fires an unreleased dispatch sent, due within the settle margin: counted here (a negative take-back).
  const unreleased =
    count === 0
      ? unreleasedFiresCounted(context, unreleasedPlan(schedule, context)).map((fire) => fire.fireTime)
      : [];
  if (unreleased.length > 0) {
    return {
      seenVersion: schedule.version,
      seenLastFireAt: schedule.lastFireAt,
      count: -unreleased.length,
      lastFireAt: unreleased.at(-1) ?? null,
    };
  }
  // Nothing to take back still pins the read: a tick that dispatches further before the write must
  // make the change read again, or the fire it sends (and counts) would be cancelled and stay counted.
  return {
    seenVersion: schedule.version,
    seenLastFireAt: schedule.lastFireAt,
    count,
    lastFireAt: count === 0 ? schedule.lastFireAt : lastCounted,
  };
}

/**
 * The fires that a dispatch holding the schedule's lease (or that held it and died before its release)
 * sent, as a plan made when the lease was taken sends them from the stored next fire time (its coalesce
 * policy, lookahead and the runs left). Those due within the change's settle margin may have run,
 * checked against the schedule before this change, yet nothing else counts them: that dispatch's
 * release, superseded by a change of the fire times, counts nothing (ADR 0004), and the changed schedule
 * plans after the fires it counts. Counting them may finish the schedule early (one that had not run is
 * cancelled by its check, or sent again in its place as a counted fire), never late.
 */
function firesSentUnreleased(schedule: Schedule, context: ActionContext): EpochMs[] {
  return unreleasedPlan(schedule, context).fires.map((fire) => fire.fireTime);
}

/** `firesSentUnreleased`'s plan, as that dispatch made it (its fires and where it would have resumed). */
function unreleasedPlan(schedule: Schedule, context: ActionContext): FirePlan {
  const none: FirePlan = { fires: [], nextFireAt: null, lastFireAt: null, coalesced: false };
  const { nextFireAt, leaseUntil, maxRuns } = schedule;
  if (schedule.leaseOwner === null || leaseUntil === null || maxRuns === null || schedule.paused) return none;
  if (nextFireAt === null) return none;
  const plan = planFires({
    scheduleId: schedule.id,
    source: compileTrigger(schedule.trigger),
    nextFireAt,
    policies: {
      coalesce: schedule.coalesce,
      misfireGraceSeconds: schedule.misfireGraceSeconds,
      maxJitterSeconds: 0,
    },
    limits: context.deps.planLimits,
    now: Math.min(leaseUntil - context.deps.scheduleLeaseMs, context.now),
    random: () => 0,
  });
  return capAtMaxRuns(plan, schedule.runs, maxRuns);
}

/** The fires of `unreleasedPlan` that a change made now counts: those due within its settle margin. */
function unreleasedFiresCounted(context: ActionContext, plan: FirePlan): PlannedFire[] {
  return plan.fires.filter((fire) => fire.fireTime <= context.now + CHANGE_SETTLE_MS);
}

/**
 * Sends again, as the dispatch that held the lease would have, the fires a change counted for it (a
 * negative take-back). That dispatch may have died before its send (its lease write applied, but its
 * answer was lost, and so it sent nothing), and a fire counted but never sent is lost without a trace:
 * the soak found a schedule with `max_runs: 20` that ran 18, two fires with no job. Sent here, each ends
 * visibly: its check cancels it, or runs it in place of the changed schedule's, as it would any fire
 * sent before the change; one the dispatch did send is deduplicated at claim. A failed send is logged:
 * the change stands.
 */
async function sendUnreleasedFires(context: ActionContext, before: Schedule): Promise<void> {
  const plan = unreleasedPlan(before, context);
  const counted = unreleasedFiresCounted(context, plan);
  const finalFire = plan.nextFireAt === null ? plan.fires.at(-1) : undefined;
  const now = context.deps.clock.now();
  const messages = counted.map((fire) => scheduleFireMessage(before, fire, now, fire === finalFire));
  const { failed } = await context.deps.queue
    .send(messages)
    .catch(() => ({ failed: messages.map((message) => message.job.id) }));
  if (failed.length === 0) return;
  context.deps.logger.warn('fires counted for a dispatch that held the lease could not be sent again', {
    scheduleId: before.id,
    fires: failed.length,
  });
}

/** The latest fire time a changed schedule still counts: its take-back's, else the one it has. */
export function lastCountedAfter(schedule: Schedule, takeBack: FiresTakenBack | undefined): EpochMs | null {
  return takeBack ? takeBack.lastFireAt : schedule.lastFireAt;
}

/**
 * A changed schedule's next fire time: its trigger's first from `from`, but after the fires still
 * counted (`lastCounted`, null for a schedule without a limit), so none is dispatched and counted twice.
 */
export function nextFireAfterChange(
  trigger: TriggerSpec,
  from: EpochMs,
  lastCounted: EpochMs | null,
): EpochMs | null {
  const start = lastCounted === null ? from : Math.max(from, lastCounted + 1);
  return compileTrigger(trigger).next(start) ?? null;
}

/** `runs` once `takeBack` is applied. */
export function runsAfter(schedule: Schedule, takeBack: FiresTakenBack | undefined): number {
  return schedule.runs - (takeBack?.count ?? 0);
}

/**
 * A change that returned later than its take-back planned for may have landed after fires it took back,
 * or fires an unreleased dispatch sent, were checked (and ran): those due up to its return (plus the
 * clock skew) are given back to `runs`. Rare (the margin is seconds), and a give-back applied twice only
 * makes the schedule finish earlier.
 */
export async function settleTakeBack(
  context: ActionContext,
  changed: Schedule,
  before: Schedule,
  takeBack: FiresTakenBack | undefined,
): Promise<Schedule> {
  // Only a write of this call took back (a pause that found the schedule paused by another did not).
  const applied =
    takeBack !== undefined &&
    changed.version === takeBack.seenVersion + 1 &&
    changed.updatedAt === context.now;
  if (applied && takeBack.count < 0) await sendUnreleasedFires(context, before);
  // The latest fire sent before the change: counted, or sent by a dispatch that did not release it.
  const sentThrough = Math.max(before.lastFireAt ?? 0, ...firesSentUnreleased(before, context));
  if (!takeBack || !applied || sentThrough === 0) return changed;
  const planned = context.now + CHANGE_SETTLE_MS;
  const settled = context.deps.clock.now() + CLOCK_SKEW_MS;
  if (settled <= planned) return changed;
  const count = firesBetween(before.trigger, planned, Math.min(settled, sentThrough));
  if (count === 0) return changed;
  context.deps.logger.warn(
    'a change took longer than its settle margin; fires due meanwhile are counted again',
    {
      scheduleId: changed.id,
      fires: count,
    },
  );
  await context.deps.scheduleStore.giveBackRuns(changed.id, count, changed.createdAt);
  return (await context.deps.scheduleStore.getSchedule(changed.id)) ?? changed;
}
