import { CHANGE_WRITE_BEGINS_WITHIN_MS } from '../../core/delivery/takeover-order';
import { ChangeTooLateError } from '../../core/errors';
import type { ActionContext } from './context';

/**
 * Called just before a write that changes schedule `scheduleId`'s definition or state at `context.now`:
 * refuses it (nothing written, `unavailable`) once the request has run longer than a takeover trusts a
 * change to take to become visible (`CHANGE_LANDS_WITHIN_MS`), slow reads or retries of its own having
 * used the time.
 */
export function assertChangeInTime(context: ActionContext, scheduleId: string): void {
  const late = context.deps.clock.now() - context.now;
  if (late > CHANGE_WRITE_BEGINS_WITHIN_MS)
    throw new ChangeTooLateError(scheduleId, late, CHANGE_WRITE_BEGINS_WITHIN_MS);
}
