import { isRecord } from '../core/json';
import type { RateLimit } from '../core/model/rate-limit';
import type { TaskRegistry } from './tasks/registry';

export const TASK_LIMITS_VARIABLE = 'SUNDIAL_TASK_LIMITS';

/** A task's limits as deployed (its module's `maxRunningJobs` and `rateLimit`). */
export interface TaskLimits {
  maxRunningJobs: number | null;
  rateLimit: RateLimit | null;
}

/**
 * Reads `SUNDIAL_TASK_LIMITS` (the construct writes it for the tick, which bundles no task code): a JSON
 * object from task id to `{ "maxRunningJobs": n | null, "rateLimit": { "max", "perSeconds" } | null }`
 * for every task of the deployment that has a limit; a task it does not list has none. Null when the
 * variable is unset (the counters' snapshots of the last claim's limits are all there is). Problems are
 * added to `problems`, naming the variable.
 */
export function parseTaskLimits(
  text: string | null,
  problems: string[],
): ReadonlyMap<string, TaskLimits> | null {
  if (text === null) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    problems.push(`${TASK_LIMITS_VARIABLE} must be a JSON object`);
    return null;
  }
  if (!isRecord(raw)) {
    problems.push(`${TASK_LIMITS_VARIABLE} must be a JSON object from task id to its limits`);
    return null;
  }
  const limits = new Map<string, TaskLimits>();
  for (const [task, value] of Object.entries(raw)) {
    const maxRunningJobs = isRecord(value) ? (value.maxRunningJobs ?? null) : undefined;
    const rateLimit = isRecord(value) ? (value.rateLimit ?? null) : undefined;
    const validMax = maxRunningJobs === null || isPositiveInteger(maxRunningJobs);
    const validRate =
      rateLimit === null ||
      (isRecord(rateLimit) && isPositiveInteger(rateLimit.max) && isPositiveInteger(rateLimit.perSeconds));
    if (!validMax || !validRate) {
      problems.push(
        `${TASK_LIMITS_VARIABLE}: task '${task}' needs { "maxRunningJobs": <positive integer or null>, "rateLimit": { "max", "perSeconds" } or null }`,
      );
      continue;
    }
    limits.set(task, {
      maxRunningJobs: maxRunningJobs as number | null,
      rateLimit:
        rateLimit === null ? null : { max: Number(rateLimit.max), perSeconds: Number(rateLimit.perSeconds) },
    });
  }
  return limits;
}

function isPositiveInteger(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

/** The limits of a registry's tasks, as `SUNDIAL_TASK_LIMITS` lists them (tasks without one left out). */
export function taskLimitsOf(registry: TaskRegistry): ReadonlyMap<string, TaskLimits> {
  const limits = new Map<string, TaskLimits>();
  for (const id of registry.ids()) {
    const definition = registry.get(id)?.definition;
    if (!definition || (definition.maxRunningJobs === null && definition.rateLimit === null)) continue;
    limits.set(id, { maxRunningJobs: definition.maxRunningJobs, rateLimit: definition.rateLimit });
  }
  return limits;
}
