import { LIMITS } from '../limits';

/**
 * Per-schedule and per-job overrides of a task's run settings, so varying one setting does not mean
 * copying a task module. Absent fields fall back to the next layer: job override → schedule override
 * (copied into each job of the schedule) → the task's option → its default.
 */
export interface RunSettingOverrides {
  /** Attempts in all, the first run included (`retry.maxAttempts`). */
  maxAttempts?: number;
  /** The delay before the second attempt, doubled for each further one (`retry.backoffSeconds`). */
  backoffSeconds?: number;
  /** Seconds before the handler's signal is aborted; never above the task's own `timeoutSeconds`. */
  timeoutSeconds?: number;
  /** How long the job's result is kept. */
  resultTtlSeconds?: number;
}

export const RUN_SETTING_NAMES = [
  'maxAttempts',
  'backoffSeconds',
  'timeoutSeconds',
  'resultTtlSeconds',
] as const satisfies ReadonlyArray<keyof RunSettingOverrides>;

/** The longest a result may be kept (ten years), for tasks and overrides alike. */
export const MAX_RESULT_TTL_SECONDS = 10 * 365 * 24 * 3600;

/** The bounds of each override (whole seconds); `timeoutSeconds` is also bounded by the task's own. */
export const RUN_SETTING_BOUNDS = {
  maxAttempts: { min: 1, max: 100 },
  backoffSeconds: { min: 0, max: 24 * 3600 },
  timeoutSeconds: { min: 1, max: LIMITS.maxLambdaTimeoutSeconds },
  resultTtlSeconds: { min: 1, max: MAX_RESULT_TTL_SECONDS },
} as const satisfies Record<keyof RunSettingOverrides, { min: number; max: number }>;

/** The run settings of a task as its worker applies them. */
export interface RunSettings {
  maxAttempts: number;
  backoffSeconds: number;
  maxBackoffSeconds: number;
  timeoutSeconds: number;
  /** `null`: the deployment's default result TTL. */
  resultTtlSeconds: number | null;
}

/**
 * The settings a job runs with: each field from the first of `overrides` (most specific first) that sets
 * it, else the task's. The timeout never exceeds the task's (it may have been lowered since the override
 * was accepted), and the backoff ceiling rises to an overridden backoff so the override takes effect.
 */
export function resolveRunSettings(
  task: RunSettings,
  ...overrides: ReadonlyArray<RunSettingOverrides | undefined>
): RunSettings {
  const pick = <Name extends keyof RunSettingOverrides>(name: Name): number | undefined =>
    overrides.find((layer) => layer?.[name] !== undefined)?.[name];
  const backoffSeconds = pick('backoffSeconds') ?? task.backoffSeconds;
  return {
    maxAttempts: pick('maxAttempts') ?? task.maxAttempts,
    backoffSeconds,
    maxBackoffSeconds: Math.max(task.maxBackoffSeconds, backoffSeconds),
    timeoutSeconds: Math.min(pick('timeoutSeconds') ?? task.timeoutSeconds, task.timeoutSeconds),
    resultTtlSeconds: pick('resultTtlSeconds') ?? task.resultTtlSeconds,
  };
}

/** The overrides without absent fields; undefined when none is set (stores keep no empty record). */
export function presentOverrides(
  overrides: RunSettingOverrides | undefined,
): RunSettingOverrides | undefined {
  if (overrides === undefined) return undefined;
  const present = Object.fromEntries(
    RUN_SETTING_NAMES.flatMap((name) => (overrides[name] === undefined ? [] : [[name, overrides[name]]])),
  ) as RunSettingOverrides;
  return Object.keys(present).length > 0 ? present : undefined;
}
