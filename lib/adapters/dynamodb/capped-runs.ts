import type { StartCappedRunInput, StartCappedRunOutcome } from '../../core/ports/schedule-store';
import { Expressions } from './expressions';
import { type StoreContext, transactionCancellation } from './store-context';
import { jobKey, scheduleKey } from './table-design';

/** The mark a counted run leaves on its job item: later claims (a takeover, a retry) keep it. */
const COUNTED_RUN = 'countedRun';
const LAST_STARTED = 'lastStartedFireAt';

/**
 * Counts a fire of a schedule with `maxRuns` as started (ADR 0008): one transaction marks the job
 * (running under `owner`, not counted yet), adds one to the schedule's `startedRuns` (of the same
 * incarnation, still below `maxRuns`) and moves its `lastStartedFireAt` on to the fire's time. 4 WRU,
 * only for such schedules; a fire that starts after a later one (the queue's order is not the fires')
 * leaves `lastStartedFireAt` where it is, in a second transaction. A retry whose first try applied
 * finds the job marked (the transaction's client token makes the SDK's own retries no-ops as well).
 */
export async function startCappedRun(
  context: StoreContext,
  input: StartCappedRunInput,
): Promise<StartCappedRunOutcome> {
  const outcome = await countStart(context, input, true);
  return outcome === 'behind'
    ? ((await countStart(context, input, false)) as StartCappedRunOutcome)
    : outcome;
}

/** `behind`: only a later fire's start had moved `lastStartedFireAt` past this fire (nothing written). */
async function countStart(
  context: StoreContext,
  input: StartCappedRunInput,
  moveOn: boolean,
): Promise<StartCappedRunOutcome | 'behind'> {
  const job = new Expressions().set(COUNTED_RUN, true);
  const jobCondition =
    `${job.name('status')} = ${job.value('running')}` +
    ` AND ${job.name('leaseOwner')} = ${job.value(input.owner)}` +
    ` AND attribute_not_exists(${job.name(COUNTED_RUN)})`;
  const schedule = new Expressions().add('startedRuns', 1);
  const started = schedule.name('startedRuns');
  let scheduleCondition =
    `${schedule.name('createdAt')} = ${schedule.value(input.createdAt)}` +
    ` AND (attribute_not_exists(${started}) OR ${started} < ${schedule.value(input.maxRuns)})`;
  if (moveOn) {
    schedule.set(LAST_STARTED, input.fireTime);
    const last = schedule.name(LAST_STARTED);
    scheduleCondition += ` AND (attribute_not_exists(${last}) OR ${last} < ${schedule.value(input.fireTime)})`;
  }
  try {
    await context.transact('startCappedRun', {
      TransactItems: [
        {
          Update: {
            TableName: context.tableName,
            Key: jobKey(input.jobId),
            ...job.buildUpdate(jobCondition),
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        {
          Update: {
            TableName: context.tableName,
            Key: scheduleKey(input.scheduleId),
            ...schedule.buildUpdate(scheduleCondition),
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
      ],
    });
    return 'started';
  } catch (error) {
    const [jobReason, scheduleReason] = transactionCancellation(error);
    if (jobReason?.code === 'ConditionalCheckFailed') {
      const old = jobReason.old;
      const countedByUs = old?.[COUNTED_RUN] === true && old.leaseOwner === input.owner;
      return countedByUs ? 'started' : 'gone';
    }
    const old = scheduleReason?.old;
    if (!old || old.createdAt !== input.createdAt) return 'gone';
    if (Number(old.startedRuns ?? 0) >= input.maxRuns) return 'limit_reached';
    return moveOn ? 'behind' : 'gone';
  }
}
