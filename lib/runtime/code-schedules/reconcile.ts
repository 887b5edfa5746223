import type { WireSchedule } from '../../core/admin-contract';
import { type DesiredSchedule, definitionFingerprint, revisionOf } from '../../core/code-schedules/desired';
import {
  type AddedBy,
  type Drift,
  type PlannedUpdate,
  planSchedules,
  type RemovalGuard,
  removalGuardProblem,
  type SchedulePlan,
} from '../../core/code-schedules/plan';
import { ConflictingIdError, ScheduleNotFoundError, VersionConflictError } from '../../core/errors';
import type { CodeManagement } from '../../core/model/schedule';
import { adminChainStarter } from '../admin/chains';
import type { ActionContext } from '../admin/context';
import type { AdminDeps } from '../admin/deps';
import { updateSchedule } from '../admin/use-cases/schedule-changes';
import { addSchedule, getSchedule, listSchedules, removeSchedule } from '../admin/use-cases/schedules';
import type { ChainStarter } from '../dispatch/chain-start';
import { checkDesiredSchedules, DeclaredSchedulesError } from './declared-schedules';

export interface ReconcileOptions extends RemovalGuard {
  /** Who reconciles: recorded on each schedule it writes and carried by each event (`npm start 2026-…`). */
  deployment: string;
}

/** What a reconcile changed. */
export interface ReconcileReport {
  /** The revision of the declared set it wrote. */
  revision: string;
  created: string[];
  updated: Array<{ id: string; fields: string[] }>;
  removed: string[];
  unchanged: number;
  /** Paused and edited schedules declared in code (paused ones stay paused). */
  drift: Drift[];
}

/** The reconcile refused to start: nothing was changed. Every problem is listed. */
export class ReconcileRefusedError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`no schedule was changed:\n  ${problems.join('\n  ')}`);
    this.name = 'ReconcileRefusedError';
  }
}

/** Tries of one schedule whose stored state another writer changed while this reconcile wrote it. */
const SETTLE_ATTEMPTS = 5;
const PAGE_SIZE = 500;

/**
 * Makes the schedules declared in code stored as declared, through the admin API's own use cases
 * (`add_schedule`, `update_schedule`, `remove_schedule`, recorded as managed by code): creates and updates
 * first, removals last. Before writing anything it checks every declaration against the tasks, refuses
 * an id that the admin API manages, and applies the removal guard: any of these fails the whole reconcile
 * and nothing changes. Idempotent: a second run changes nothing. A schedule another writer changes
 * meanwhile (an overlapping reconcile) is read again and settled, one conditional write per change, so
 * none is ever duplicated or half-written. Pauses are operational state and stay.
 *
 * @throws ReconcileRefusedError (nothing changed); a store failure part-way leaves what was written,
 *   which the next run completes
 */
export async function reconcileSchedules(
  deps: AdminDeps,
  declared: readonly unknown[],
  options: ReconcileOptions,
): Promise<ReconcileReport> {
  const desired = checked(deps, declared);
  const revision = revisionOf(desired);
  const base = baseContext(deps);
  const plan = planSchedules(desired, await allSchedules(base), base.now);
  const problems = [
    ...plan.clashes.map(
      (id) =>
        `schedule '${id}' exists and is managed through the admin API, so code cannot declare it: rename the declaration, or remove that schedule (remove_schedule) and deploy again`,
    ),
    ...finishedTriggers(plan),
  ];
  const guard = removalGuardProblem(plan, options, revision);
  if (guard) problems.push(guard);
  if (problems.length > 0) throw new ReconcileRefusedError(problems);

  const report: ReconcileReport = {
    revision,
    created: [],
    updated: [],
    removed: [],
    unchanged: plan.unchanged.length,
    drift: plan.drift,
  };
  const added = { addedIn: revision, addedOver: options.previousRevision ?? '' };
  const writer = new ScheduleWriter(deps, options.deployment, added, report);
  for (const create of plan.create) await writer.settle(create.id, desiredById(desired, create.id));
  for (const update of plan.update) await writer.update(update, desiredById(desired, update.id));
  for (const removal of plan.remove) await writer.settle(removal.id, undefined);
  return report;
}

/** What `reconcileSchedules` would do, without writing: the plan and why it would be refused. */
export async function planReconcile(
  deps: AdminDeps,
  declared: readonly unknown[],
  guard: RemovalGuard,
): Promise<{ plan: SchedulePlan; refused: string | undefined }> {
  const desired = checked(deps, declared);
  const base = baseContext(deps);
  const plan = planSchedules(desired, await allSchedules(base), base.now);
  return { plan, refused: removalGuardProblem(plan, guard, revisionOf(desired)) };
}

/** A schedule added, or given a new trigger, must have a fire time left (as `add_schedule` requires). */
function finishedTriggers(plan: SchedulePlan): string[] {
  const newTriggers = [
    ...plan.create,
    ...plan.update.filter((update) => update.changes.some((change) => change.field === 'trigger')),
  ];
  return newTriggers
    .filter((change) => change.fireTimesAfter.times.length === 0)
    .map(
      (change) =>
        `schedule '${change.id}' (${change.declaredIn}): trigger: has no fire time left; remove the declaration, or give it a trigger that fires again`,
    );
}

function checked(deps: AdminDeps, declared: readonly unknown[]): DesiredSchedule[] {
  try {
    return checkDesiredSchedules(deps.tasks, declared);
  } catch (error) {
    if (error instanceof DeclaredSchedulesError) throw new ReconcileRefusedError(error.problems);
    throw error;
  }
}

function desiredById(desired: readonly DesiredSchedule[], id: string): DesiredSchedule {
  const found = desired.find((schedule) => schedule.id === id);
  if (!found) throw new Error(`planned schedule '${id}' is not declared`);
  return found;
}

function baseContext(deps: AdminDeps): ActionContext {
  const { newId } = deps;
  return { deps, now: deps.clock.now(), requestId: newId(), newId, chains: adminChainStarter(deps) };
}

/** Every stored schedule, page by page (as `list_schedules` answers: live notes included). */
async function allSchedules(context: ActionContext): Promise<WireSchedule[]> {
  const schedules: WireSchedule[] = [];
  let cursor: string | null = null;
  do {
    const page: { schedules: WireSchedule[]; cursor: string | null } = await listSchedules(
      { limit: PAGE_SIZE, ...(cursor !== null && { cursor }) },
      context,
    );
    schedules.push(...page.schedules);
    cursor = page.cursor;
  } while (cursor !== null);
  return schedules;
}

/** Writes one schedule at a time through the admin use cases, as code, and records what it did. */
class ScheduleWriter {
  /** Starts the chains of the schedules this run writes, as one admin API instance does. */
  private readonly chains: ChainStarter;

  constructor(
    private readonly deps: AdminDeps,
    private readonly deployment: string,
    /** Who adds the schedules this run creates. */
    private readonly adding: AddedBy,
    private readonly report: ReconcileReport,
  ) {
    this.chains = adminChainStarter(deps);
  }

  /** Applies a planned update; when the schedule changed since it was read, settles it afresh. */
  async update(update: PlannedUpdate, desired: DesiredSchedule): Promise<void> {
    try {
      await updateSchedule(
        { ...updateRequest(update), expected_version: update.version },
        this.context(desired, update.added),
      );
      this.report.updated.push({ id: update.id, fields: update.changes.map((change) => change.field) });
    } catch (error) {
      if (!(error instanceof VersionConflictError || error instanceof ScheduleNotFoundError)) throw error;
      await this.settle(update.id, desired);
    }
  }

  /**
   * Reads the schedule and makes it `desired` (absent: removed), retrying when another writer gets there
   * first: an add that finds it added, an update that finds another version, a removal of a gone one.
   */
  async settle(id: string, desired: DesiredSchedule | undefined): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.settleOnce(id, desired);
        return;
      } catch (error) {
        const raced =
          error instanceof ConflictingIdError ||
          error instanceof VersionConflictError ||
          error instanceof ScheduleNotFoundError;
        if (!raced || attempt >= SETTLE_ATTEMPTS) throw error;
      }
    }
  }

  private async settleOnce(id: string, desired: DesiredSchedule | undefined): Promise<void> {
    const stored = await this.read(id);
    if (desired === undefined) {
      if (!stored) return;
      await removeSchedule({ id }, this.context(undefined, this.adding));
      this.report.removed.push(id);
      return;
    }
    if (!stored) {
      await addSchedule(addRequest(desired), this.context(desired, this.adding));
      this.report.created.push(id);
      return;
    }
    const plan = planSchedules([desired], [stored], this.deps.clock.now());
    if (plan.clashes.length > 0) {
      throw new ReconcileRefusedError([`schedule '${id}' was added through the admin API meanwhile`]);
    }
    const [update] = plan.update;
    if (update) await this.update(update, desired);
  }

  private async read(id: string): Promise<WireSchedule | undefined> {
    try {
      return (await getSchedule({ id }, this.context(undefined, this.adding))).schedule;
    } catch (error) {
      if (error instanceof ScheduleNotFoundError) return undefined;
      throw error;
    }
  }

  /** A request context as code: the schedule it writes is recorded as managed by code, from `desired`. */
  private context(desired: DesiredSchedule | undefined, added: AddedBy): ActionContext {
    const { newId } = this.deps;
    const management: CodeManagement = {
      declaredIn: desired?.declaredIn ?? '',
      deployment: this.deployment,
      fingerprint: desired ? definitionFingerprint(desired.fields) : '',
      ...added,
    };
    const now = this.deps.clock.now();
    return { deps: this.deps, now, requestId: newId(), newId, chains: this.chains, management };
  }
}

/** The `add_schedule` request of a declared schedule (an existing id is an error, never overwritten). */
function addRequest(desired: DesiredSchedule): Record<string, unknown> {
  return { id: desired.id, ...desired.fields, conflict_policy: 'exception' };
}

/** The `update_schedule` fields of a planned update: the changed ones, `null` where one is cleared. */
function updateRequest(update: PlannedUpdate): Record<string, unknown> {
  const request: Record<string, unknown> = { id: update.id };
  for (const { field, after } of update.changes) request[field] = after;
  return request;
}
