import type { AdminAction, AdminResults } from '../../core/admin-contract';
import type { EpochMs } from '../../core/clock';
import type { AdminDeps } from './deps';

/** What every action handler gets: the dependencies, one `now` for the whole request, and ids. */
export interface ActionContext {
  deps: AdminDeps;
  /** Read once per request, so every check and write of one call agrees on the time. */
  now: EpochMs;
  requestId: string;
  newId: () => string;
}

/** Serves one action: its raw fields in (validated by the handler, which reports every problem), its result out. */
export type ActionHandler<Action extends AdminAction> = (
  raw: Record<string, unknown>,
  context: ActionContext,
) => Promise<AdminResults[Action]>;

/** Runs `work` over `items` with at most `limit` calls in flight, keeping the order of results. */
export async function mapConcurrently<Item, Result>(
  items: readonly Item[],
  limit: number,
  work: (item: Item, index: number) => Promise<Result>,
): Promise<Result[]> {
  const results = new Array<Result>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as Item, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
