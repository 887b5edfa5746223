import { ManagedByApiError, ManagedByCodeError } from '../../../core/errors';
import type { Schedule } from '../../../core/model/schedule';
import type { ActionContext } from '../context';

/**
 * Who may change a schedule's definition: code changes only the schedules declared in code (through its
 * reconcile), the admin API only its own. Pausing, resuming and running a schedule now are operational
 * and open to both: they never call this.
 *
 * @throws ManagedByCodeError when an admin API request would change a schedule declared in code
 * @throws ManagedByApiError when code would change a schedule added through the admin API
 */
export function checkDefinitionOwner(context: ActionContext, schedule: Schedule | undefined): void {
  if (!schedule) return;
  if (schedule.managedBy && !context.management) {
    throw new ManagedByCodeError(schedule.id, schedule.managedBy.declaredIn);
  }
  if (!schedule.managedBy && context.management) throw new ManagedByApiError(schedule.id);
}
