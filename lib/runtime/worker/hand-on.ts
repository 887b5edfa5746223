import type { EpochMs } from '../../core/clock';
import type { RunSettingOverrides } from '../../core/model/run-settings';
import { CARRIED_RESEND_MS, type HeldSlot, type WokenEntry } from '../../core/ports/waiting-line';
import { sendWoken } from '../flow/woken';
import { definitionForJob } from '../tasks/effective-definition';
import type { WorkerContext } from './worker-context';

/**
 * Time a carried job's invocation must have left beyond its task's timeout and the worker's safety
 * margin: its claim, its ending's writes.
 */
const CARRY_ON_MARGIN_MS = 1_000;

/**
 * The slot a run of `task` gives back as it ends, and whether this invocation means to carry on the
 * job it is handed to (`wakeHandedOn`): the store then marks that job overdue sooner, since no message
 * of it travels.
 */
export function heldSlotOf(ctx: WorkerContext, task: string): HeldSlot {
  return { task, carriedOn: carriesOn(ctx, task) };
}

/** Whether this invocation means to carry on a job of `task` that a slot it gives back is handed to. */
export function carriesOn(ctx: WorkerContext, task: string): boolean {
  return mayCarryOn(ctx, task, undefined);
}

/**
 * Wakes the jobs a slot was handed to: carried on in this invocation when it has time for the job's
 * whole timeout (and its task has no rate limit, whose woken job may have to wait for its start), sent
 * otherwise. Until its claim the woken entry keeps the slot, so a crash before the claim is repaired as
 * a lost message is: the entry is sent again once overdue. An entry woken to be carried on that cannot
 * be after all (the ending's writes took the time that was left) has its resend taken before its
 * message goes, so that nobody sends it again while it travels. A slot whose run's handler still runs
 * until its sandbox ends (`notBefore`) wakes its job with a message that arrives after that.
 */
export async function wakeHandedOn(
  ctx: WorkerContext,
  woken: WokenEntry,
  notBefore?: EpochMs,
): Promise<void> {
  if (notBefore === undefined && mayCarryOn(ctx, woken.task, woken.message.job.overrides)) {
    ctx.carryOn?.(woken);
    return;
  }
  const now = ctx.deps.clock.now();
  const wokenToCarry = woken.overdueAt - woken.wokenAt <= CARRIED_RESEND_MS;
  if (wokenToCarry && !(await ctx.deps.jobStore.markWokenResent(woken, now))) return;
  const delaySeconds = notBefore === undefined ? 0 : Math.max(0, Math.ceil((notBefore - now) / 1000));
  await sendWoken(ctx.deps, [woken], delaySeconds);
}

function mayCarryOn(ctx: WorkerContext, task: string, overrides: RunSettingOverrides | undefined): boolean {
  if (!ctx.carryOn) return false;
  const registered = ctx.registry.get(task);
  if (!registered) return false;
  const definition = definitionForJob(registered.definition, overrides);
  if (definition.rateLimit) return false;
  const needsMs =
    definition.timeoutSeconds * 1000 + ctx.deps.config.workerSafetyMarginMs + CARRY_ON_MARGIN_MS;
  return ctx.remainingMs() >= needsMs;
}
