/**
 * `sundial/client`: Sundial's admin API for application code, typed from the task modules in
 * `functions/`. It depends on the AWS SDK's Lambda client only (a test bundles it to check).
 *
 * @example
 * import { SundialClient, isSundialError } from 'sundial/client';
 * import type { SundialTasks } from './functions/tasks';
 *
 * const sundial = new SundialClient<SundialTasks>({ functionName: process.env.SUNDIAL_ADMIN_FUNCTION ?? '' });
 * const { job } = await sundial.addJob('send-report', { team: 'ops', recipients: ['ops@example.com'] });
 * const { result } = await sundial.getJobResult(job, { wait_seconds: 20 });
 */
export {
  type JobOptions,
  type JobRef,
  type JobRun,
  type ScheduleRequest,
  SundialClient,
  type SundialClientOptions,
  type TypedJob,
  type TypedJobResult,
} from './client';
export { isSundialError, SundialApiError, SundialUnavailableError } from './errors';
export type { SundialTarget } from './target';
export type { PayloadOf, ResultOf, TaskId, TaskMap, TaskTypes } from './task-types';
