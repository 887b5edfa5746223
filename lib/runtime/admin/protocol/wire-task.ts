import type { WireTask } from '../../../core/admin-contract';
import { resultTtlSecondsOf } from '../../tasks/define-task';
import type { RegisteredTask } from '../deps';

/** What the store says about a task now: its running and waiting jobs, and whether it is paused. */
export interface TaskState {
  running: number;
  waiting: number;
  paused: boolean;
}

/** A task as the admin API shows it; `defaultResultTtlSeconds` fills in a task that sets none. */
export function wireTask(task: RegisteredTask, state: TaskState, defaultResultTtlSeconds: number): WireTask {
  const { definition } = task;
  return {
    id: task.id,
    max_running_jobs: definition.maxRunningJobs,
    rate_limit: definition.rateLimit && {
      max: definition.rateLimit.max,
      per_seconds: definition.rateLimit.perSeconds,
    },
    misfire_grace_seconds: definition.misfireGraceSeconds,
    timeout_seconds: definition.timeoutSeconds,
    retry: {
      max_attempts: definition.retry.maxAttempts,
      backoff_seconds: definition.retry.backoffSeconds,
      max_backoff_seconds: definition.retry.maxBackoffSeconds,
    },
    result_ttl_seconds: resultTtlSecondsOf(definition, defaultResultTtlSeconds),
    events: definition.events,
    has_payload_schema: definition.payloadSchema !== null,
    running: state.running,
    waiting: state.waiting,
    paused: state.paused,
  };
}
