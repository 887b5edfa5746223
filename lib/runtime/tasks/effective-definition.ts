import { type RunSettingOverrides, resolveRunSettings } from '../../core/model/run-settings';
import type { TaskDefinition } from './define-task';

/**
 * The task's definition as one job runs it: its retry policy, timeout and result TTL with the job's
 * overrides applied (`resolveRunSettings`). A job without overrides runs the definition itself.
 */
export function definitionForJob(
  definition: TaskDefinition,
  overrides: RunSettingOverrides | undefined,
): TaskDefinition {
  if (overrides === undefined) return definition;
  const settings = resolveRunSettings(
    {
      ...definition.retry,
      timeoutSeconds: definition.timeoutSeconds,
      resultTtlSeconds: definition.resultTtlSeconds,
    },
    overrides,
  );
  return {
    ...definition,
    retry: {
      maxAttempts: settings.maxAttempts,
      backoffSeconds: settings.backoffSeconds,
      maxBackoffSeconds: settings.maxBackoffSeconds,
    },
    timeoutSeconds: settings.timeoutSeconds,
    resultTtlSeconds: settings.resultTtlSeconds,
  };
}
