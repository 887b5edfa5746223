import type { CoalescePolicy } from '../model/schedule';

/** How a schedule turns its trigger's fire times into jobs. */
export interface FirePolicies {
  coalesce: CoalescePolicy;
  /** Seconds after `runAt` that a job may still start; `null` = no deadline. */
  misfireGraceSeconds: number | null;
  /** Each fire starts up to this many seconds late, at random, never reaching the next fire time. */
  maxJitterSeconds: number;
}
