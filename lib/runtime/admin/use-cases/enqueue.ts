import type { AddedJob } from '../../../core/admin-contract';
import { mapWithConcurrency } from '../../../core/concurrency';
import type { Job } from '../../../core/model/job';
import type { ConflictPolicy } from '../../../core/model/schedule';
import {
  type JobMessage,
  PARKED_JOB_LEAD_MS,
  parksBeyondQueueDelay,
  queueDelaySeconds,
} from '../../../core/ports/job-queue';
import { DEFAULT_UNCLAIMED_RESEND_MS, type JobRequest } from '../../../core/ports/job-store';
import type { ActionContext } from '../context';

export interface EnqueueRequest {
  job: JobRequest;
  conflictPolicy: ConflictPolicy;
}

/** `parked`: the job waits in the due index (it starts later than the queue can delay it) and the tick sends it. */
export type EnqueueOutcome =
  | { ok: true; status: AddedJob['status']; queued: AddedJob['queued']; job: Job }
  | { ok: false; error: unknown };

const STORE_CONCURRENCY = 16;

/**
 * Stores and sends jobs as {@link enqueueDistinct} does. A job id given more than once is handled as
 * separate calls would handle it, in order: its k-th occurrence goes in the k-th round, after the
 * earlier ones were stored and sent, so the conflict policy decides (two writes of one id in flight at
 * once would race, and either could win).
 */
export async function enqueueJobs(
  context: ActionContext,
  requests: readonly EnqueueRequest[],
): Promise<EnqueueOutcome[]> {
  const outcomes: EnqueueOutcome[] = [];
  for (const round of roundsOfDistinctIds(requests)) {
    const roundOutcomes = await enqueueDistinct(
      context,
      round.map((index) => requests[index] as EnqueueRequest),
    );
    round.forEach((index, position) => {
      outcomes[index] = roundOutcomes[position] as EnqueueOutcome;
    });
  }
  return outcomes;
}

/** Indexes of `requests` in rounds: round k holds the k-th occurrence of each job id. */
function roundsOfDistinctIds(requests: readonly EnqueueRequest[]): number[][] {
  const rounds: number[][] = [];
  const seen = new Map<string, number>();
  requests.forEach((request, index) => {
    const occurrence = seen.get(request.job.id) ?? 0;
    seen.set(request.job.id, occurrence + 1);
    const round = rounds[occurrence] ?? [];
    round.push(index);
    rounds[occurrence] = round;
  });
  return rounds;
}

/**
 * Stores each job (status `queued`), then sends the ones due within the queue's longest delay in one
 * batch; later ones are parked in the due index for the tick. A job the queue refuses is parked at its
 * run time, unless a worker already claimed it (a send that throws may have delivered), or the queue
 * refused it for good (`refused`: the queue ended the job with an error, see `endingRefusedJobs`). A stored job is
 * never lost: whatever happens after its write (this call dies, or the send and the parking both fail,
 * or the write applied but its answer was lost and the caller retries with `do_nothing`), it waits in
 * the due index from `resendIfUnclaimedAt` on, and its claim takes it out. Items fail independently.
 */
async function enqueueDistinct(
  context: ActionContext,
  requests: readonly EnqueueRequest[],
): Promise<EnqueueOutcome[]> {
  const { jobStore, queue } = context.deps;
  const { now } = context;
  const unclaimedResendMs = context.deps.unclaimedResendMs ?? DEFAULT_UNCLAIMED_RESEND_MS;
  // The tick sends parked jobs that long before they are due: the net is that much later, so that it
  // only ever catches a job still unclaimed `unclaimedResendMs` after its run time.
  const resendAfterMs = unclaimedResendMs + PARKED_JOB_LEAD_MS;
  const outcomes = await mapWithConcurrency(
    requests,
    STORE_CONCURRENCY,
    async (request): Promise<EnqueueOutcome> => {
      const parkUntilDue = parksBeyondQueueDelay(request.job.runAt, now);
      try {
        const created = await jobStore.createJob({
          ...request,
          now,
          parkUntilDue,
          resendIfUnclaimedAt: request.job.runAt + resendAfterMs,
        });
        const queued = created.status === 'kept' ? 'not_sent' : parkUntilDue ? 'parked' : 'sent';
        return { ok: true, status: created.status, queued, job: created.job };
      } catch (error) {
        return { ok: false, error };
      }
    },
  );

  // Each message carries the creation it is for: sent for a job replaced since, it runs nothing
  const toSend = outcomes.flatMap((outcome, index) =>
    outcome.ok && outcome.queued === 'sent'
      ? [
          {
            index,
            status: outcome.status,
            stored: outcome.job,
            request: withToken(requests[index] as EnqueueRequest, outcome.job),
          },
        ]
      : [],
  );
  if (toSend.length === 0) return outcomes;

  const messages: JobMessage[] = toSend.map(({ request }) => ({
    job: request.job,
    attempt: 1,
    delaySeconds: queueDelaySeconds(request.job.runAt, now),
  }));
  let failedIds: Set<string>;
  let refusedIds = new Set<string>();
  let sendError: unknown;
  try {
    const sent = await queue.send(messages);
    failedIds = new Set(sent.failed);
    refusedIds = new Set((sent.refused ?? []).map((refused) => refused.jobId));
  } catch (error) {
    sendError = error;
    failedIds = new Set(messages.map((message) => message.job.id));
  }
  // The queue refused these for good, and their jobs ended with an error saying why: answer with them
  await mapWithConcurrency(
    toSend.filter(({ request }) => refusedIds.has(request.job.id)),
    STORE_CONCURRENCY,
    async ({ index, status, stored }) => {
      const ended = await jobStore.getJob(stored.id, now).catch(() => undefined);
      outcomes[index] = { ok: true, status, queued: 'refused', job: ended ?? stored };
    },
  );
  const unsent = toSend.filter(({ request }) => failedIds.has(request.job.id));
  if (unsent.length > 0) {
    context.deps.logger.warn('queue refused jobs; parking them in the due index for the tick', {
      requestId: context.requestId,
      jobIds: unsent.map(({ request }) => request.job.id),
      error: sendError,
    });
  }
  await mapWithConcurrency(unsent, STORE_CONCURRENCY, async ({ index, status, stored, request }) => {
    // Only a job nobody claimed: a send that threw may still have delivered the message, and a
    // claimed job stays `sent`. Should parking fail too, the job's net in the due index holds it.
    const parked = await jobStore.parkUnclaimedJob(request.job.id).catch((error: unknown) => {
      context.deps.logger.warn('job neither sent nor parked; the tick sends it if still unclaimed', {
        requestId: context.requestId,
        jobId: request.job.id,
        resendAt: new Date(request.job.runAt + unclaimedResendMs).toISOString(),
        error,
      });
      return stored;
    });
    if (parked) outcomes[index] = { ok: true, status, queued: 'parked', job: parked };
  });
  return outcomes;
}

function withToken(request: EnqueueRequest, created: Job): EnqueueRequest {
  return created.createToken === undefined
    ? request
    : { ...request, job: { ...request.job, createToken: created.createToken } };
}
