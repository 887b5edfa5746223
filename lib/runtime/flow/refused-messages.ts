import type { Clock } from '../../core/clock';
import { LeaseLostError } from '../../core/errors';
import type { Job, JobResult } from '../../core/model/job';
import type { JobMessage, JobQueue, RefusedMessage } from '../../core/ports/job-queue';
import type { JobStore } from '../../core/ports/job-store';
import type { Logger } from '../observability/logger';

/** The error type of a job whose message the queue refused for good. */
export const MESSAGE_REFUSED_ERROR = 'MessageRefusedError';

/** A short lease: the job is ended right after it is claimed, without running anything. */
const ENDING_LEASE_MS = 60_000;

export interface RefusedJobsDeps {
  jobStore: Pick<JobStore, 'claimJob' | 'finishJob'>;
  clock: Clock;
  /** Names the short claim that ends a job (`RuntimeDeps.newId`). */
  newId: () => string;
  logger: Logger;
  /** How long the error result is kept, unless the job overrides it. */
  defaultResultTtlSeconds: number;
}

/**
 * The queue, whose sends end the job of every message it refuses for good (`SendOutcome.refused`: too
 * long, characters it does not take): sent again, such a message would be refused again, so instead of
 * waiting (or being sent again every tick) for ever, its job ends at once with a `MessageRefusedError`
 * result naming the job and the queue's reason, as a job that cannot run ends in the worker. A job is
 * ended only if it can be claimed for the message's attempt (nobody runs it); the send then reports it
 * neither failed (there is nothing left to send) nor refused unless ended: `refused` lists the jobs
 * ended here, for callers that answer for them (the admin API). A job that cannot be ended stays failed,
 * for the caller's usual fallback.
 */
export function endingRefusedJobs(queue: JobQueue, deps: RefusedJobsDeps): JobQueue {
  return {
    async send(messages) {
      const outcome = await queue.send(messages);
      if (!outcome.refused || outcome.refused.length === 0) return outcome;
      const ended = await endRefusedJobs(deps, messages, outcome.refused);
      const refused = outcome.refused.filter((message) => ended.has(message.jobId));
      return {
        failed: outcome.failed.filter((jobId) => !ended.has(jobId)),
        ...(refused.length > 0 && { refused }),
      };
    },
    changeVisibility: (message, timeoutSeconds) => queue.changeVisibility(message, timeoutSeconds),
  };
}

/** Ends the jobs of the refused messages it can claim; resolves with the ids of those it ended. */
async function endRefusedJobs(
  deps: RefusedJobsDeps,
  messages: readonly JobMessage[],
  refused: readonly RefusedMessage[],
): Promise<Set<string>> {
  const byJobId = new Map(messages.map((message) => [message.job.id, message]));
  const ended = await Promise.all(
    refused.map(async ({ jobId, reason }) => {
      const message = byJobId.get(jobId);
      return message && (await endRefusedJob(deps, message, reason)) ? [jobId] : [];
    }),
  );
  return new Set(ended.flat());
}

async function endRefusedJob(
  deps: RefusedJobsDeps,
  message: JobMessage,
  reason: string,
): Promise<Job | undefined> {
  const { job, attempt } = message;
  const now = deps.clock.now();
  const owner = `refused-${deps.newId()}`;
  try {
    const claim = await deps.jobStore.claimJob({
      job,
      attempt,
      owner,
      now,
      leaseUntil: now + ENDING_LEASE_MS,
      ...(message.taskLogged && { taskLogged: true }),
    });
    if (claim.status !== 'claimed') return undefined;
    const result: JobResult = {
      outcome: 'error',
      error: {
        type: MESSAGE_REFUSED_ERROR,
        message: `the queue refused the message of job '${job.id}' for good, so it cannot run: ${reason}`,
      },
      startedAt: null,
      finishedAt: now,
      attempt,
    };
    const ttlSeconds = job.overrides?.resultTtlSeconds ?? deps.defaultResultTtlSeconds;
    const finished = await deps.jobStore.finishJob({
      jobId: job.id,
      owner,
      result,
      expiresAt: now + ttlSeconds * 1000,
    });
    deps.logger.error("the queue refused a job's message for good; the job ended with an error", {
      jobId: job.id,
      task: job.task,
      attempt,
      reason,
    });
    return finished.job;
  } catch (error) {
    if (!(error instanceof LeaseLostError)) {
      deps.logger.warn('could not end a job whose message the queue refused; it stays unsent', {
        jobId: job.id,
        error,
      });
    }
    return undefined;
  }
}
