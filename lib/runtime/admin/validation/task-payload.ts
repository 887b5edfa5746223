import type { StandardSchemaV1 } from '@standard-schema/spec';
import { TaskNotFoundError, type ValidationIssue } from '../../../core/errors';
import type { JsonValue } from '../../../core/json';
import { formatPath } from '../../../core/validation';
import type { RegisteredTask, TaskRegistry } from '../deps';
import { TaskConfigurationError } from '../errors';

/** The registered task, or a `TaskNotFoundError` that lists the known tasks. */
export function requireTask(registry: TaskRegistry, id: string): RegisteredTask {
  const task = registry.get(id);
  if (!task) throw new TaskNotFoundError(id, registry.ids());
  return task;
}

/**
 * Checks a payload against the task's `payloadSchema` (any Standard Schema), reporting each problem
 * under `<path>.<field>` (`payload.team`, `jobs[2].payload.team`). The payload is stored as given:
 * the worker hands the handler what the caller sent.
 */
export function payloadSchemaIssues(
  task: RegisteredTask,
  payload: JsonValue,
  path: string,
): ValidationIssue[] {
  const schema = task.definition.payloadSchema;
  if (!schema) return [];
  let result: StandardSchemaV1.Result<unknown> | Promise<StandardSchemaV1.Result<unknown>>;
  try {
    result = schema['~standard'].validate(payload);
  } catch (error) {
    throw new TaskConfigurationError(task.id, 'its payloadSchema threw instead of returning issues', {
      cause: error,
    });
  }
  if (result instanceof Promise) {
    result.catch(() => undefined);
    throw new TaskConfigurationError(
      task.id,
      'its payloadSchema validates asynchronously; payload schemas must be synchronous (no async refinements)',
    );
  }
  if (!result.issues) return [];
  return result.issues.map((issue) => ({ path: formatPath(issue.path ?? [], path), message: issue.message }));
}
