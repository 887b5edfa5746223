import type { EpochMs } from '../clock';

/** What the tick hands one dispatcher (ADR 0006): due-index shards it leased, and until when. */
export interface DispatchRequest {
  /** The tick's lease owner: the dispatcher releases the shards under it when done. */
  owner: string;
  /** Due-index shards, each leased by `owner`, distinct, 0 to `dueShards − 1`. */
  shards: number[];
  /** When the shard leases end: the dispatcher stops reading before then (a later tick may take them). */
  leaseUntil: EpochMs;
}

/** Starts a dispatcher elsewhere (the dispatcher Lambda, invoked asynchronously) and does not wait for it. */
export interface DispatcherInvoker {
  invoke(request: DispatchRequest): Promise<void>;
}
