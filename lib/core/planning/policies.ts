import type { CoalescePolicy } from '../model/schedule';

/** How a schedule turns its trigger's fire times into jobs. */
export interface FirePolicies {
  coalesce: CoalescePolicy;
  /** Seconds after `runAt` that a job may still start; `null` = no deadline. */
  misfireGraceSeconds: number | null;
  /** Each fire starts up to this many seconds late, at random, never reaching the next fire time. */
  maxJitterSeconds: number;
}

/** How far ahead a tick dispatches, and how much one plan may do. */
export interface PlanLimits {
  /** Fire times up to `now + lookaheadMs` are dispatched now, delayed in the queue (at most 900 s). */
  lookaheadMs: number;
  /** A plan dispatches at most this many fires; the rest wait for the next plan, none is lost. */
  maxFiresPerPlan: number;
}

export const DEFAULT_PLAN_LIMITS: PlanLimits = { lookaheadMs: 90_000, maxFiresPerPlan: 1_000 };
