/**
 * What a task module imports: `defineTask`, `NonRetryableError` and the types of a handler. A module in
 * `functions/` imports them by the relative path `../lib/runtime/sdk`.
 *
 * @example
 * // functions/cleanup.ts — the task id is the file name: 'cleanup'
 * // (imports defineTask and NonRetryableError, as above)
 * export default defineTask({
 *   timeoutSeconds: 30,
 *   retry: { maxAttempts: 5, backoffSeconds: 10 },
 *   async handler(payload, { logger, signal, attempt }) {
 *     if (typeof payload !== 'object' || payload === null) throw new NonRetryableError('payload must be an object');
 *     logger.info('cleaning up', { attempt });
 *     await fetch('https://example.com/cleanup', { method: 'POST', signal });
 *     return { cleaned: true };
 *   },
 * });
 */
export type { ScheduleDeclaration, ScheduleOverrides } from '../core/code-schedules/declaration';
export { NonRetryableError } from '../core/errors';
export type { JsonValue } from '../core/json';
export {
  defineTask,
  type EventsPolicy,
  type JobContext,
  type JobLogger,
  type RetryPolicy,
  TASK_DEFAULTS,
  type TaskDefinition,
  type TaskHandler,
  type TaskOptions,
  type TaskResult,
} from './tasks/define-task';
