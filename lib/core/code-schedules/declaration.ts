import type { JsonValue } from '../json';
import type { CoalescePolicy } from '../model/schedule';
import type { TriggerSpec } from '../triggers/schema';

/**
 * A schedule declared in code: beside its task (`schedules` in `defineTask`) or in the CDK app (the
 * construct's `schedules` prop, which names the task). The reconcile run by `cdk deploy` and `npm start`
 * creates, updates and removes the schedules declared this way (docs/code-schedules.md).
 *
 * @example
 * { id: 'ops-weekday-report', trigger: '0 9 * * MON-FRI', timezone: 'Europe/Berlin',
 *   payload: { team: 'ops' }, description: 'The ops team’s morning report' }
 */
export interface ScheduleDeclaration<Payload = JsonValue> {
  /** Unique across every declaration (and every schedule added through the admin API). */
  readonly id: string;
  /**
   * A cron expression (`'0 9 * * MON-FRI'`, 5 fields or 6 with seconds), an EventBridge Scheduler
   * expression (`'cron(0 9 ? * MON-FRI *)'`, `'rate(5 minutes)'`, `'at(2026-12-24T18:00:00)'`), or any
   * trigger the admin API takes as JSON (docs/triggers.md). An interval (or a `rate(…)`) without
   * `start_at` counts from the Unix epoch, so every environment agrees on its fire times.
   */
  readonly trigger: string | TriggerSpec;
  /** The IANA time zone of the trigger (cron, calendar_interval, eventbridge). @default 'UTC' */
  readonly timezone?: string;
  /** Checked against the task's `payloadSchema`. @default {} */
  readonly payload?: Payload;
  readonly description?: string;
  /** Copied into each job (the handler reads `context.metadata`). */
  readonly metadata?: Readonly<Record<string, string>>;
  readonly tags?: readonly string[];
  /** Overrides of the task's run settings for the schedule's jobs. */
  readonly overrides?: ScheduleOverrides;
  /** @default 'latest' */
  readonly coalesce?: CoalescePolicy;
  /** @default the task's `misfireGraceSeconds` */
  readonly misfireGraceSeconds?: number | null;
  /** @default 0 */
  readonly maxJitterSeconds?: number;
  /** @default 'normal' */
  readonly priority?: 'normal' | 'critical';
}

export interface ScheduleOverrides {
  readonly maxAttempts?: number;
  readonly backoffSeconds?: number;
  readonly timeoutSeconds?: number;
  readonly resultTtlSeconds?: number;
}

/** Where the CDK app's declarations (the construct's `schedules` prop) are said to be declared. */
export const APP_DECLARATIONS = 'the CDK app (Sundial schedules prop)';

/** A schedule declared in the CDK app (the construct's `schedules` prop): it names its task. */
export interface AppScheduleDeclaration extends ScheduleDeclaration {
  readonly task: string;
}
