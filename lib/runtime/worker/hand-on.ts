import type { WokenEntry } from '../../core/ports/waiting-line';
import { sendWoken } from '../flow/woken';
import { definitionForJob } from '../tasks/effective-definition';
import type { WorkerContext } from './worker-context';

/**
 * Time a carried job's invocation must have left beyond its task's timeout and the worker's safety
 * margin: its claim, its ending's writes.
 */
const CARRY_ON_MARGIN_MS = 1_000;

/**
 * Wakes the jobs a slot was handed to: carried on in this invocation when it has time for the job's
 * whole timeout (and its task has no rate limit, whose woken job may have to wait for its start), sent
 * otherwise. Until its claim the woken entry keeps the slot, so a crash before the claim is repaired as
 * a lost message is: the entry is sent again once overdue.
 */
export async function wakeHandedOn(ctx: WorkerContext, woken: WokenEntry): Promise<void> {
  if (ctx.carryOn && mayCarryOn(ctx, woken)) {
    ctx.carryOn(woken);
    return;
  }
  await sendWoken(ctx.deps, [woken]);
}

function mayCarryOn(ctx: WorkerContext, woken: WokenEntry): boolean {
  const registered = ctx.registry.get(woken.task);
  if (!registered) return false;
  const definition = definitionForJob(registered.definition, woken.message.job.overrides);
  if (definition.rateLimit) return false;
  const needsMs =
    definition.timeoutSeconds * 1000 + ctx.deps.config.workerSafetyMarginMs + CARRY_ON_MARGIN_MS;
  return ctx.remainingMs() >= needsMs;
}
