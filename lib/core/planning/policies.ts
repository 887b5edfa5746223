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
  /**
   * A schedule is read (due) once its next fire time is within `now + dueAheadMs`, and its plan then
   * dispatches up to the lookahead: each read sends the fires of at least `lookahead − dueAhead`, so a
   * frequent schedule is moved on once per that span, not once per fire. It must stay above the tick
   * period plus the tick's run time, or fires go out late. Absent: the lookahead.
   */
  dueAheadMs?: number;
  /**
   * A schedule whose next fire time lies beyond the lookahead but within `now + earlySendMs` (at most
   * 900 s), and whose following fire is more than `earlySendMs` after it (hourly, daily, a date), has
   * that one fire dispatched now, delayed in the queue (ADR 0006): a herd of such schedules due at the
   * same second is in the queue before it is due. 0 or absent: off.
   */
  earlySendMs?: number;
}

/** How far ahead a tick reads due schedules: `dueAheadMs` (or the lookahead), or the early-send window when longer. */
export function dueWindowMs(limits: PlanLimits): number {
  return Math.max(limits.dueAheadMs ?? limits.lookaheadMs, limits.earlySendMs ?? 0);
}

export const DEFAULT_PLAN_LIMITS: PlanLimits = { lookaheadMs: 90_000, maxFiresPerPlan: 1_000 };
