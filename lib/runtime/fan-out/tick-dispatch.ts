import type { RuntimeDeps } from '../dependencies';
import { dispatcherOf, type FanOutTotals, fanOutDispatch } from './fan-out-dispatch';

/**
 * The tick's dispatch of due schedules (ADR 0006): fanned out to `config.dispatchers` dispatchers over
 * the shards it leased (the dispatcher Lambda in AWS, the same code in this process locally).
 */
export function dispatchForTick(deps: RuntimeDeps, owner: string): Promise<FanOutTotals> {
  return fanOutDispatch(deps, owner, dispatcherOf(deps));
}
