import type { RegisteredTask } from '../deps';
import type { InputCheck } from './input-check';

/**
 * A timeout override may shorten the task's timeout, never lengthen it: the worker's Lambda timeout and
 * the run's lease are sized from the task's own. Records the problem on `timeout_seconds`.
 */
export function checkTimeoutOverride(
  check: InputCheck,
  task: RegisteredTask | undefined,
  timeoutSeconds: unknown,
): void {
  if (task === undefined || typeof timeoutSeconds !== 'number') return;
  const taskTimeout = task.definition.timeoutSeconds;
  if (timeoutSeconds > taskTimeout) {
    check.problem(
      'timeout_seconds',
      `must be at most the timeoutSeconds of task '${task.id}' (${taskTimeout}); an override may shorten the task's timeout, not lengthen it`,
    );
  }
}
