import type { AdminAction, AdminResults } from '../../core/admin-contract';
import type { EpochMs } from '../../core/clock';
import type { CodeManagement } from '../../core/model/schedule';
import type { ChainStarter } from '../dispatch/chain-start';
import type { AdminDeps } from './deps';

/** What every action handler gets: the dependencies, one `now` for the whole request, and ids. */
export interface ActionContext {
  deps: AdminDeps;
  /** Read once per request, so every check and write of one call agrees on the time. */
  now: EpochMs;
  requestId: string;
  newId: () => string;
  /** Starts the note chains of the schedules the call writes (one per admin API instance). */
  chains: ChainStarter;
  /**
   * Set only by the reconcile of schedules declared in code (never by an admin API request): the schedule
   * it writes is recorded as managed by code, and its events carry the deploy's identity.
   */
  management?: CodeManagement;
}

/** Serves one action: its raw fields in (validated by the handler, which reports every problem), its result out. */
export type ActionHandler<Action extends AdminAction> = (
  raw: Record<string, unknown>,
  context: ActionContext,
) => Promise<AdminResults[Action]>;
