import type { StartCappedRunInput, StartCappedRunOutcome } from '../../core/ports/schedule-store';
import { Expressions } from './expressions';
import { type StoreContext, transactionCancellation } from './store-context';
import { jobKey, scheduleKey } from './table-design';

/** The mark a counted run leaves on its job item: later claims (a takeover, a retry) keep it. */
const COUNTED_RUN = 'countedRun';

/**
 * Counts a fire of a schedule with `maxRuns` as started (ADR 0008): one transaction marks the job
 * (running under `owner`, not counted yet) and adds one to the schedule's `startedRuns` (of the same
 * incarnation, still below `maxRuns`). 4 WRU, only for such schedules. A retry whose first try applied
 * finds the job marked (the transaction's client token makes the SDK's own retries no-ops as well).
 */
export async function startCappedRun(
  context: StoreContext,
  input: StartCappedRunInput,
): Promise<StartCappedRunOutcome> {
  const job = new Expressions().set(COUNTED_RUN, true);
  const jobCondition =
    `${job.name('status')} = ${job.value('running')}` +
    ` AND ${job.name('leaseOwner')} = ${job.value(input.owner)}` +
    ` AND attribute_not_exists(${job.name(COUNTED_RUN)})`;
  const schedule = new Expressions().add('startedRuns', 1);
  const started = schedule.name('startedRuns');
  const scheduleCondition =
    `${schedule.name('createdAt')} = ${schedule.value(input.createdAt)}` +
    ` AND (attribute_not_exists(${started}) OR ${started} < ${schedule.value(input.maxRuns)})`;
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
    return old && old.createdAt === input.createdAt ? 'limit_reached' : 'gone';
  }
}
