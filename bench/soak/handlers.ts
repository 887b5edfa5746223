import type { JobContext } from '../../lib/runtime/tasks/define-task';
import { sleep } from '../support/parallel';
import type { Faults } from './faults';
import type { JobTrace } from './job-trace';
import { SOAK_TASKS, type SoakPayload, type SoakTask } from './plan';
import type { ExecutionRecorder } from './recorder';
import type { CrashableWorkers } from './worker-crashes';

/** The soak's tasks time out after this long; an overrunning handler ignores its signal past it. */
export const SOAK_TIMEOUT_SECONDS = 3;

/** A value DynamoDB cannot store (1e200: past what it keeps exactly): the job must end as an error, never re-run. */
const UNSTORABLE = { n: 1e200 };

/**
 * The handler of a soak task: records its start and end (so concurrency and free slots are measured
 * inside handlers), works its task's `workMs`, and on a first attempt may misbehave as the faults say: throw, return an unstorable
 * value, or (the task limited to one running job) ignore its signal and run past its timeout. Its process may die mid-job.
 */
export function soakHandler(
  task: SoakTask,
  env: {
    recorder: ExecutionRecorder;
    faults: Faults;
    trace: JobTrace;
    crashes: () => CrashableWorkers | undefined;
  },
) {
  const { recorder, faults } = env;
  return async (payload: SoakPayload, context: JobContext) => {
    const crashes = env.crashes();
    const first = context.attempt === 1;
    recorder.start(task, {
      jobId: context.jobId,
      attempt: context.attempt,
      at: Date.now(),
      rev: payload.rev,
    });
    crashes?.started(context.jobId);
    env.trace.add(
      context.jobId,
      crashes?.caller() ?? '?',
      `handler starts attempt ${context.attempt} payload rev ${payload.rev}`,
    );
    const startedAt = Date.now();
    const stop = () => {
      recorder.end(task, { jobId: context.jobId, from: startedAt, to: Date.now() });
      crashes?.ended(context.jobId);
    };
    if (first && SOAK_TASKS[task].maxRunningJobs === 1 && faults.strike('overrun')) {
      // Ignores `context.signal`: keeps its slot busy past the timeout; its attempt ends as a timeout.
      await sleep((SOAK_TIMEOUT_SECONDS + 2 + Math.random()) * 1000);
      stop();
      return { overran: true };
    }
    const [least, most] = SOAK_TASKS[task].workMs;
    await sleep(least + Math.random() * (most - least));
    if (crashes?.dead()) {
      stop();
      return new Promise<never>(() => {}); // the process died mid-job: this run never ends
    }
    stop();
    // A well-behaved handler honours its signal: past its deadline it gives up rather than completing.
    if (context.signal.aborted) throw context.signal.reason;
    if (first && faults.strike('handlerThrows')) throw new Error('injected: the handler failed');
    crashes?.completed(context.jobId, context.attempt);
    if (first && faults.strike('unstorableReturn')) return UNSTORABLE;
    return { ok: true };
  };
}
