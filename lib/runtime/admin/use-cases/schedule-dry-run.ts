import { wireSchedule } from '../../../core/admin-contract';
import type { ScheduleResults } from '../../../core/admin-contract/schedules';
import { ConflictingIdError } from '../../../core/errors';
import type { ConflictPolicy, Schedule, ScheduleDefinition } from '../../../core/model/schedule';
import type { ActionContext } from '../context';
import { chainPosition } from './chain-positions';
import { readWithLiveNote } from './live-notes';
import { checkDefinitionOwner } from './ownership';

/**
 * `add_schedule` with `dry_run`, once its fields, task, payload and trigger have passed the checks of a
 * real call: the id is checked against the stored schedules under `conflictPolicy` as the store would
 * (`conflicting_id` for `exception`), a replace against who manages the stored one, and the answer is
 * what the call would answer, with nothing written, dispatched or published. The schedule shown is the one the call would store (a replace starts where
 * the replaced one's runs leave it, as `chainPosition` places it; a kept one is the stored one).
 */
export async function dryRunAddSchedule(
  context: ActionContext,
  schedule: ScheduleDefinition,
  conflictPolicy: ConflictPolicy,
): Promise<ScheduleResults['add_schedule']> {
  const existing = await readWithLiveNote(context, schedule.id);
  if (existing && conflictPolicy === 'exception') throw new ConflictingIdError('schedule', schedule.id);
  if (existing && conflictPolicy === 'do_nothing') {
    return { status: 'kept', dispatched_jobs: 0, schedule: wireSchedule(existing) };
  }
  checkDefinitionOwner(context, existing);
  const { now } = context;
  const { position, startedRuns } = chainPosition(schedule, now, existing, now);
  const stored: Schedule = {
    ...schedule,
    ...position,
    firesFrom: now,
    version: (existing?.version ?? 0) + 1,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
    // No chain is started: nothing is written.
    chain: null,
    startedRuns: startedRuns ?? existing?.startedRuns ?? 0,
    lastStartedFireAt: existing?.lastStartedFireAt ?? null,
  };
  return { status: existing ? 'replaced' : 'added', dispatched_jobs: 0, schedule: wireSchedule(stored) };
}
