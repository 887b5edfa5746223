import type { EpochMs } from '../../core/clock';
import type { Job } from '../../core/model/job';
import { Expressions } from './expressions';
import { updateJobWhile } from './job-items';
import type { StoreContext } from './store-context';
import { jobKey } from './table-design';

const REQUESTED = 'cancelRequestedAt';

/** See `CancelRequests.requestCancel`: one conditional update of a running job's item (1 WRU). */
export async function requestCancel(
  context: StoreContext,
  id: string,
  now: EpochMs,
): Promise<Job | undefined> {
  const update = new Expressions();
  update.setExpression(REQUESTED, `if_not_exists(${update.name(REQUESTED)}, ${update.value(now)})`);
  const condition = `${update.name('status')} = ${update.value('running')}`;
  return updateJobWhile(context, 'requestCancel', id, update, condition);
}

/**
 * See `CancelRequests.isCancelRequested`: an eventually consistent read (0.5 RRU per 4 KB of the job
 * item: a projection does not make it cheaper).
 */
export async function isCancelRequested(context: StoreContext, id: string, owner: string): Promise<boolean> {
  const output = await context.get('isCancelRequested', {
    Key: jobKey(id),
    ProjectionExpression: '#requested, #owner',
    ExpressionAttributeNames: { '#requested': REQUESTED, '#owner': 'leaseOwner' },
  });
  const item = output.Item;
  return item?.leaseOwner === owner && typeof item[REQUESTED] === 'number';
}
