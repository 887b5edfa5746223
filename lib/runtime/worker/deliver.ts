import {
  arrivedDelivery,
  type Delivery,
  nextStep,
  restedForStart,
  type Step,
  type TaskTerms,
  takingTurn,
  wakePassed,
  withClaim,
} from '../../core/delivery/delivery';
import { checkedVerdict } from '../../core/delivery/fire-verdict';
import { takingOver } from '../../core/delivery/takeover';
import { decodeJobMessage, type JobMessageBody } from '../../core/model/job-message';
import { queueDelaySeconds } from '../../core/ports/job-queue';
import type { ClaimJobInput, JobRequest } from '../../core/ports/job-store';
import { copyOf, linePosition } from '../../core/ports/waiting-line';
import { joinWaitingLine } from '../flow/join-line';
import type { Logger } from '../observability/logger';
import { resultTtlSecondsOf, TASK_DEFAULTS, type TaskDefinition } from '../tasks/define-task';
import { definitionForJob } from '../tasks/effective-definition';
import { comeBackAfter, comeBackLater } from './come-back';
import { finishWithoutRunning } from './finish-without-running';
import { readFireSchedule, readRemoval } from './fire-reads';
import { passWakeOn } from './pass-wake';
import type { Received } from './received';
import { runJob } from './run-job';
import { runLeaseUntil } from './run-lease';
import { handleUnreadableMessage } from './unreadable-message';
import { waitForStart } from './wait-for-start';
import { type MessageOutcome, type WorkerContext, waitUntil } from './worker-context';
import { writeWithRetries } from './write-retries';

/**
 * Handles one queue message (ADR 0009): decodes it, then asks `nextStep` what to do with the delivery
 * and performs that step, until the message goes or comes back. Each step adds one fact to the
 * delivery; no step calls another.
 */
export async function deliver(ctx: WorkerContext, received: Received): Promise<MessageOutcome> {
  const decoded = decodeJobMessage(received.body);
  if (!decoded.ok) return handleUnreadableMessage(ctx, received, decoded.reason);
  const { message } = decoded;
  const logger = ctx.deps.logger.child({
    jobId: message.job.id,
    task: message.job.task,
    attempt: message.attempt,
  });
  let delivery = arrivedDelivery(
    {
      job: message.job,
      attempt: message.attempt,
      // A fire's first delivery, and any copy of a checked delivery (a takeover of a run whose check
      // failed, a reclaim as a later attempt) that waited for its slot or its rate's start: a retry
      // carries no revision
      ...(message.job.origin === 'schedule' &&
        message.revision && {
          fire: {
            revision: message.revision,
            taskLogged: message.taskLogged === true,
          },
        }),
      ...(message.woken && { woken: copyOf(message) }),
    },
    termsOf(ctx, message.job),
  );
  try {
    for (;;) {
      const step = nextStep(delivery, ctx.deps.clock.now());
      const performed = await perform(
        ctx,
        received,
        delivery,
        step,
        logger.child({ attempt: delivery.attempt }),
      );
      if (typeof performed === 'string') return performed;
      delivery = performed;
    }
  } catch (error) {
    logger.error('processing the job failed; the message comes back', {
      messageId: received.messageId,
      error,
    });
    return 'retry_later';
  }
}

/** Performs one step: the delivery with its new fact, or how the message ends. */
async function perform(
  ctx: WorkerContext,
  received: Received,
  delivery: Delivery,
  step: Step,
  logger: Logger,
): Promise<Delivery | MessageOutcome> {
  const { deps } = ctx;
  switch (step.kind) {
    case 'resend':
      return resend(ctx, delivery, queueDelaySeconds(delivery.job.runAt, deps.clock.now()), logger);
    case 'send_later':
      return resend(ctx, delivery, step.delaySeconds, logger);
    case 'rest':
      await waitUntil(ctx, step.until);
      return { ...delivery, rested: true };
    case 'read_paused':
      return {
        ...delivery,
        pausedTask: await ctx.pausedTasks.isPaused(deps.jobStore, deps.clock, delivery.job.task),
      };
    case 'read_schedule':
      return { ...delivery, reads: await readFireSchedule(ctx.deps, delivery.job) };
    case 'read_removal': {
      const { reads, fire } = delivery;
      if (!reads || !fire) throw new Error('a removal read without a fire check');
      return { ...delivery, reads: { ...reads, removed: await readRemoval(ctx.deps, delivery.job, fire) } };
    }
    case 'claim':
      return claim(ctx, delivery);
    case 'end_unrun': {
      const refused = await finishWithoutRunning(
        ctx,
        delivery,
        step.ending,
        endingTerms(ctx, delivery),
        logger,
      );
      return refused ? { ...delivery, unrunClaim: refused } : { ...delivery, endedUnrun: true };
    }
    case 'pass_wake':
      await passWakeOn(ctx, delivery, logger);
      return wakePassed(delivery);
    case 'join_line':
      return joinLine(ctx, received, delivery, step.mayTakeTurn, logger);
    case 'rest_for_start':
      await waitUntil(ctx, step.until);
      return restedForStart(delivery);
    case 'wait_for_start':
      return waitForStart(ctx, delivery, messageOf(delivery), step.at, logger);
    case 'take_turn':
      logger.debug('a slot came back while the job joined its line, at the head: claimed at once');
      return { ...takingTurn(delivery), woken: copyOf(messageOf(delivery)) };
    case 'run': {
      const claimed = delivery.claim?.outcome;
      if (claimed?.status !== 'claimed') throw new Error('run without a claim');
      const ran = await runJob(ctx, delivery, claimed, logger);
      return { ...delivery, ran };
    }
    case 'take_over':
      logger.warn('taking over a run whose lease ended (its worker vanished)', {
        stoppedAttempt: step.run.attempt,
      });
      return takingOver(delivery, step.run, termsOf(ctx, step.run));
    case 'come_back':
      return step.afterSeconds === undefined
        ? comeBackLater(ctx, received, logger)
        : comeBackAfter(ctx, received, step.afterSeconds, logger);
    case 'keep':
      return 'retry_later';
    case 'drop':
      if (step.why === 'duplicate') {
        ctx.counters.duplicates += 1;
        logger.debug('duplicate delivery dropped');
      }
      if (step.why === 'cancelled') logger.info('job was cancelled; dropping the message');
      return 'done';
  }
}

/**
 * Sends the delivery's message again, to come back after `delaySeconds`: a far-ahead job hops through
 * the queue again (SQS delays at most `LIMITS.maxQueueDelaySeconds` and in whole seconds), and a fire's
 * copy waits for a reaped run (`send_later`). The copy carries what its message carried (a final fire
 * still cleans up its schedule when it ends, a logged one still leaves the task's index out, a woken
 * one still takes its slot).
 */
async function resend(
  ctx: WorkerContext,
  delivery: Delivery,
  delaySeconds: number,
  logger: Logger,
): Promise<MessageOutcome> {
  const { attempt, fire } = delivery;
  const { failed } = await ctx.deps.queue.send([{ ...messageOf(delivery), delaySeconds }]);
  if (failed.length === 0) return 'done';
  logger.warn('could not send the message again for later; the queue redelivers it', {
    attempt,
    fire: fire !== undefined,
  });
  return 'retry_later';
}

async function claim(ctx: WorkerContext, delivery: Delivery): Promise<Delivery> {
  const { deps } = ctx;
  const { job, attempt, fire, task, reads } = delivery;
  const now = deps.clock.now();
  const definition = definitionOf(ctx, delivery);
  const owner = `worker-${deps.newId()}`;
  const leaseUntil = runLeaseUntil(ctx, definition.timeoutSeconds, now);
  const input: ClaimJobInput = {
    job,
    attempt,
    owner,
    now,
    leaseUntil,
    ...(task?.maxRunningJobs != null && { concurrencyLimit: task.maxRunningJobs }),
    ...(task?.rateLimit && { rateLimit: task.rateLimit }),
    ...(fire &&
      reads && {
        reclaimCancelledFire: true,
        check: {
          revision: fire.revision,
          failed: !checkedVerdict(reads, job, fire, now).run,
          startedAt: reads.at,
        },
      }),
    ...(fire?.taskLogged && { taskLogged: true }),
    ...(delivery.woken && { woken: { position: linePosition(delivery), copy: delivery.woken } }),
  };
  // A claim the store gave up on in an outage may have applied, its answer lost: made again within the
  // lease's margin, it is told so, and the run goes on instead of holding the job (and its slot) with
  // no handler until its lease ends and the tick reaps it. A rate-limited claim is made once: made
  // again later, it would book its start at a time already past.
  const outcome = task?.rateLimit
    ? await deps.jobStore.claimJob(input)
    : await writeWithRetries(ctx, now + deps.config.jobLeaseMarginSeconds * 1000, () =>
        deps.jobStore.claimJob(input),
      );
  return withClaim(delivery, outcome, { at: now, owner, leaseUntil });
}

/**
 * The task is at its limit (or paused): the job joins the task's line and its message goes, so a
 * backlog holds no queue capacity. Joined first, deleted after: a job is never in neither. When the
 * line cannot be joined the message comes back after a short while to try again.
 */
async function joinLine(
  ctx: WorkerContext,
  received: Received,
  delivery: Delivery,
  mayTakeTurn: boolean,
  logger: Logger,
): Promise<Delivery | MessageOutcome> {
  try {
    const joined = await joinWaitingLine(ctx.deps, messageOf(delivery), { mayTakeTurn });
    // The counter read right after joining says whether the task is still paused: a stale view is dropped.
    if (joined.slots && !joined.slots.paused) ctx.pausedTasks.resumed(delivery.job.task);
    if (!joined.ownTurn) ctx.counters.waiting += 1;
    return { ...delivery, joined: { ownTurn: joined.ownTurn } };
  } catch (error) {
    logger.warn('could not join the waiting line; the message comes back to try again', { error });
    return comeBackAfter(ctx, received, LINE_UNAVAILABLE_RETRY_SECONDS, logger);
  }
}

/** When the waiting line cannot be joined (the store is failing), the message comes back after this. */
const LINE_UNAVAILABLE_RETRY_SECONDS = 5;

/** The delivery's message as its copies carry it (to its line, or sent to wait): a checked one stays one. */
function messageOf(delivery: Delivery): JobMessageBody {
  const { job, attempt, fire, woken } = delivery;
  return {
    job,
    attempt,
    ...(fire && { revision: fire.revision }),
    ...(fire?.taskLogged && { taskLogged: true }),
    ...(woken && { woken: true }),
  };
}

type TaskOfJob = { task: string } & Partial<Pick<JobRequest, 'overrides'>>;

/** The terms of `job`'s task as this worker knows it (undefined: it does not), with the job's overrides. */
function termsOf(ctx: WorkerContext, job: TaskOfJob): TaskTerms | undefined {
  const registered = ctx.registry.get(job.task);
  if (!registered) return undefined;
  const definition = definitionForJob(registered.definition, job.overrides);
  return {
    maxRunningJobs: definition.maxRunningJobs,
    rateLimit: definition.rateLimit,
    maxAttempts: definition.retry.maxAttempts,
  };
}

/** The task's definition with the job's overrides (its timeout for the claim's lease). */
function definitionOf(ctx: WorkerContext, delivery: Delivery): TaskDefinition {
  const registered = ctx.registry.get(delivery.job.task);
  if (!registered) throw new Error(`task '${delivery.job.task}' is not registered`);
  return definitionForJob(registered.definition, delivery.job.overrides);
}

/** How long the result of a job ended without running is kept, and which events it publishes. */
function endingTerms(ctx: WorkerContext, delivery: Delivery) {
  const registered = ctx.registry.get(delivery.job.task);
  if (!registered) {
    return {
      resultTtlSeconds: delivery.job.overrides?.resultTtlSeconds ?? ctx.deps.config.defaultResultTtlSeconds,
      events: TASK_DEFAULTS.events,
      knownTasks: ctx.registry.ids(),
    };
  }
  const definition = definitionForJob(registered.definition, delivery.job.overrides);
  return {
    resultTtlSeconds: resultTtlSecondsOf(definition, ctx.deps.config.defaultResultTtlSeconds),
    events: definition.events,
    knownTasks: ctx.registry.ids(),
  };
}
