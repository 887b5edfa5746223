import { isDeepStrictEqual } from 'node:util';
import type { SQSRecord } from 'aws-lambda';
import type { Job } from '../../core/model/job';
import { decodeJobMessage, type JobMessageBody } from '../../core/model/job-message';
import type { JobMessage } from '../../core/ports/job-queue';
import { queueDelaySeconds } from '../../core/ports/job-queue';
import type { JobRequest } from '../../core/ports/job-store';
import { linePosition } from '../../core/ports/waiting-line';
import { jobRequestOf } from '../dispatch/job-messages';
import { joinWaitingLine } from '../flow/join-line';
import type { Logger } from '../observability/logger';
import { resultTtlSecondsOf, TASK_DEFAULTS } from '../tasks/define-task';
import { definitionForJob } from '../tasks/effective-definition';
import { comeBackAfter, comeBackLater } from './come-back';
import { finishWithoutRunning } from './finish-without-running';
import { cleanUpFinishedSchedule, mayEndItsSchedule } from './finished-schedule';
import { runLeaseUntil } from './run-lease';
import { runClaimedFire, type ScheduleFire, scheduleFireOf } from './schedule-fire-check';
import { handleUnreadableMessage } from './unreadable-message';
import { wakeAfterSlotReturned, wakeForFreeSlotsOf } from './wake-after-run';
import { type MessageOutcome, type WorkerContext, waitUntil } from './worker-context';

/** A message that arrives this much (or less) before its run time waits here; earlier ones are re-sent. */
const MAX_WAIT_MS = 1_000;
/** When the waiting line cannot be joined (the store is failing), the message comes back after this. */
const LINE_UNAVAILABLE_RETRY_SECONDS = 5;
/** How many times in a row a job that joined its line with a slot free claims again at once (`waitInLine`). */
const MAX_OWN_TURNS = 3;

/**
 * Handles one queue message: decode, wait for the run time, claim, then run (or finish without running
 * when the task is unknown, the attempts are used up, or the start deadline has passed).
 */
export async function processMessage(ctx: WorkerContext, record: SQSRecord): Promise<MessageOutcome> {
  const decoded = decodeJobMessage(record.body);
  if (!decoded.ok) return handleUnreadableMessage(ctx, record, decoded.reason);
  const { job, attempt } = decoded.message;
  const logger = ctx.deps.logger.child({ jobId: job.id, task: job.task, attempt });
  try {
    const fire = scheduleFireOf(decoded.message);
    const outcome = await processJob(ctx, record, job, attempt, logger, fire, decoded.message.wokenBy);
    if (outcome !== 'done' || !mayEndItsSchedule(decoded.message, fire)) return outcome;
    return await cleanUpFinishedSchedule(ctx, job, logger);
  } catch (error) {
    logger.error('processing the job failed; the message comes back', { messageId: record.messageId, error });
    return 'retry_later';
  }
}

async function processJob(
  ctx: WorkerContext,
  record: SQSRecord,
  job: JobRequest,
  attempt: number,
  logger: Logger,
  fire?: ScheduleFire,
  wokenBy?: string,
  ownTurns = 0,
): Promise<MessageOutcome> {
  const { clock } = ctx.deps;
  const elsewhere = (stored: Job | undefined) =>
    onClaimedElsewhere(ctx, record, job, attempt, stored, logger, fire);
  const early = job.runAt - clock.now();
  // SQS delays at most LIMITS.maxQueueDelaySeconds and in whole seconds: a far-ahead job hops through the queue again,
  // and the sub-second rest is waited out here so the job starts at its time, not up to 1 s early (the tick
  // sends each fire at a phase that leaves tens of ms of it: SUNDIAL_SEND_PHASE_TOLERANCE_MS).
  // What is sent again (or kept in the task's line) carries the fire's marks: a final fire still cleans
  // up its schedule when it ends, a logged one still leaves the task's index out.
  const message: JobMessageBody = {
    job,
    attempt,
    ...(fire?.revision && { revision: fire.revision }),
    ...(fire?.finalFire && { finalFire: true }),
    ...(fire?.taskLogged && { taskLogged: true }),
  };
  if (early > MAX_WAIT_MS)
    return sendAgain(ctx, { ...message, delaySeconds: queueDelaySeconds(job.runAt, clock.now()) }, logger);
  await waitUntil(ctx, job.runAt);

  const task = ctx.registry.get(job.task);
  if (!task) {
    return finishWithoutRunning(
      ctx,
      job,
      attempt,
      logger,
      {
        outcome: 'error',
        error: {
          type: 'UnknownTaskError',
          message: `task '${job.task}' is not registered in this worker; known tasks: ${ctx.registry.ids().join(', ') || '(none)'}`,
        },
        resultTtlSeconds: job.overrides?.resultTtlSeconds ?? ctx.deps.config.defaultResultTtlSeconds,
        events: TASK_DEFAULTS.events,
      },
      elsewhere,
    );
  }
  const definition = definitionForJob(task.definition, job.overrides);
  const limited = definition.maxRunningJobs !== null || definition.rateLimit !== null;
  // A limited task's job that ends here took no slot: a wake-up that brought it is passed on, after its
  // entry leaves the line (a waker that died after sending left it held, which the count takes for a job
  // on its way: the wake-up passed on, and the tick's, would wake nobody until the hold ended).
  const passWakeOn = async (outcome: MessageOutcome): Promise<MessageOutcome> => {
    if (wokenBy !== undefined) await leaveLineOfWaker(ctx, message, wokenBy, logger);
    if (limited) await wakeForFreeSlotsOf(ctx, job.task, logger, { passOn: true });
    return outcome;
  };
  if (attempt - (job.attemptBase ?? 0) > definition.retry.maxAttempts) {
    return passWakeOn(
      await finishWithoutRunning(
        ctx,
        job,
        attempt,
        logger,
        {
          outcome: 'abandoned',
          error: {
            type: 'JobAbandonedError',
            message: `attempt ${attempt - 1} stopped answering (its lease expired) and retry.maxAttempts (${definition.retry.maxAttempts}) allows no further attempt`,
          },
          resultTtlSeconds: resultTtlSecondsOf(definition, ctx.deps.config.defaultResultTtlSeconds),
          events: definition.events,
        },
        elsewhere,
      ),
    );
  }
  const now = clock.now();
  if (job.startDeadline !== null && now > job.startDeadline) {
    return passWakeOn(
      await finishWithoutRunning(
        ctx,
        job,
        attempt,
        logger,
        {
          outcome: 'missed_start_deadline',
          resultTtlSeconds: resultTtlSecondsOf(definition, ctx.deps.config.defaultResultTtlSeconds),
          events: definition.events,
        },
        elsewhere,
      ),
    );
  }

  if (!limited && (await ctx.pausedTasks.isPaused(ctx.deps.jobStore, clock, job.task))) {
    logger.debug('the task is paused; the job waits in its line');
    return waitInLine(ctx, record, message, logger);
  }
  const owner = `worker-${ctx.deps.newId()}`;
  let leaseUntil = 0;
  const claimAt = (at: number) => {
    leaseUntil = runLeaseUntil(ctx, definition.timeoutSeconds, at);
    return ctx.deps.jobStore.claimJob({
      job,
      attempt,
      owner,
      now: at,
      leaseUntil,
      ...(definition.maxRunningJobs === null ? {} : { concurrencyLimit: definition.maxRunningJobs }),
      ...(definition.rateLimit && { rateLimit: definition.rateLimit }),
      ...(fire && { reclaimCancelledFire: true }),
      ...(fire?.taskLogged && { taskLogged: true }),
    });
  };
  let startedAt = now;
  let claim = await claimAt(startedAt);
  // Refused by the rate for at most a second (a woken job arrives in the second before its start time):
  // the job waits for its start time here and tries once more.
  const rateWait = claim.status === 'no_slot' ? claim.nextStartAt : undefined;
  if (
    rateWait !== undefined &&
    rateWait - clock.now() <= MAX_WAIT_MS &&
    (job.startDeadline === null || rateWait <= job.startDeadline)
  ) {
    await waitUntil(ctx, rateWait);
    startedAt = clock.now();
    claim = await claimAt(startedAt);
  }
  switch (claim.status) {
    case 'claimed': {
      if (wokenBy !== undefined) await leaveLineOfWaker(ctx, message, wokenBy, logger);
      const run = {
        job,
        attempt,
        owner,
        definition,
        startedAt,
        leaseUntil,
        logger,
        reclaimed: claim.reclaimed,
      };
      if (definition.rateLimit === null) {
        const outcome = await runClaimedFire(ctx, run, fire);
        if (limited) await wakeAfterSlotReturned(ctx, job.task, logger);
        return outcome;
      }
      const outcome = await runRateLimited(ctx, run, fire);
      if (definition.maxRunningJobs !== null) await wakeForFreeSlotsOf(ctx, job.task, logger);
      return outcome;
    }
    case 'no_slot':
      logger.debug("no free slot; the job waits in its task's line", { running: claim.running });
      return waitInLine(
        ctx,
        record,
        message,
        logger,
        ownTurns >= MAX_OWN_TURNS
          ? undefined
          : () => processJob(ctx, record, job, attempt, logger, fire, undefined, ownTurns + 1),
      );
    case 'cancelled':
      if (claim.reclaimAsAttempt !== undefined) {
        // A takeover after this attempt was cancelled by its check: this delivery carries on as that attempt.
        return processJob(ctx, record, job, claim.reclaimAsAttempt, logger, fire, wokenBy);
      }
      logger.info('job was cancelled; dropping the message');
      return passWakeOn('done');
    case 'duplicate':
      return passWakeOn(await elsewhere(claim.job));
  }
}

/**
 * Another delivery claimed the job. A finished (or retrying) job: this message is a duplicate, dropped.
 * A running one: the message for attempt n+1 can arrive before attempt n is marked `retrying` (see the
 * reaper), so it waits. A run without a slot is not reaped by the tick: its message is the way back if
 * its worker vanished, so it is kept until the run's lease ends, and then takes the run over as the
 * next attempt. (A slot holder's expired run is the reaper's: it returns the slot.)
 */
async function onClaimedElsewhere(
  ctx: WorkerContext,
  record: SQSRecord,
  job: JobRequest,
  attempt: number,
  stored: Job | undefined,
  logger: Logger,
  fire: ScheduleFire | undefined,
): Promise<MessageOutcome> {
  if (stored?.status === 'running' && stored.attempt < attempt) return comeBackLater(ctx, record, logger);
  if (stored?.status === 'running' && !stored.holdsSlot && stored.leaseUntil !== null) {
    const leaseLeftMs = stored.leaseUntil - ctx.deps.clock.now();
    if (leaseLeftMs >= 0) return comeBackAfter(ctx, record, Math.ceil(leaseLeftMs / 1000) + 1, logger);
    logger.warn('taking over a run whose lease ended (its worker vanished)', {
      stoppedAttempt: stored.attempt,
    });
    // The takeover continues the run as stored (the message may be older: sent before a schedule change),
    // and like the reaper's messages carries no start deadline: the run had started in time. Unless it
    // was claimed after its deadline: that claim only records the miss (`finishWithoutRunning`) and its
    // worker vanished before writing it, so the takeover keeps the deadline and records the miss too.
    const claimedLate =
      stored.startDeadline !== null && stored.startedAt !== null && stored.startedAt > stored.startDeadline;
    const run: JobRequest = {
      ...jobRequestOf(stored),
      startDeadline: claimedLate ? stored.startDeadline : null,
    };
    const sentAsTakenOverRun = job.task === run.task && isDeepStrictEqual(job.payload, run.payload);
    const takeover =
      fire && stored.startedAt !== null
        ? { ...fire, takenOverClaimAt: stored.startedAt, sentAsTakenOverRun }
        : fire;
    return processJob(ctx, record, run, stored.attempt + 1, logger, takeover);
  }
  ctx.counters.duplicates += 1;
  logger.debug('duplicate delivery dropped', { status: stored?.status });
  return 'done';
}

async function sendAgain(ctx: WorkerContext, message: JobMessage, logger: Logger): Promise<MessageOutcome> {
  const { failed } = await ctx.deps.queue.send([message]);
  if (failed.length === 0) return 'done';
  logger.warn('could not re-send an early message; the queue redelivers it');
  return 'retry_later';
}

/**
 * The task is at its limit (or paused): the job joins the task's waiting line and its message goes, so
 * a backlog holds no queue capacity. Joined first, deleted after: a job is never only in neither. When
 * the line cannot be joined the message comes back after a short while to try again. `claimNow`: a
 * slot freed while the job joined, and the job's turn has come: it is claimed again here rather than
 * woken through the queue (up to `MAX_OWN_TURNS` times; then the join wakes the line as the tick does).
 */
async function waitInLine(
  ctx: WorkerContext,
  record: SQSRecord,
  message: JobMessageBody,
  logger: Logger,
  claimNow?: () => Promise<MessageOutcome>,
): Promise<MessageOutcome> {
  let ownTurn = false;
  try {
    const joined = await joinWaitingLine(ctx.deps, message, { takeOwnTurn: claimNow !== undefined });
    // The counter read right after joining says whether the task is still paused: a stale view is dropped.
    if (joined.slots && !joined.slots.paused) ctx.pausedTasks.resumed(message.job.task);
    ownTurn = joined.ownTurn;
  } catch (error) {
    logger.warn('could not join the waiting line; the message comes back to try again', { error });
    return comeBackAfter(ctx, record, LINE_UNAVAILABLE_RETRY_SECONDS, logger);
  }
  if (ownTurn && claimNow) {
    logger.debug('a slot came back while the job joined its line, at the head: claimed at once');
    return claimNow();
  }
  ctx.counters.waiting += 1;
  return 'done';
}

/**
 * A rate-limited job that started: the line is woken for the task's next start time while this one
 * runs (one job, arriving just before that time). Its handler starts aligned on its claim
 * (`alignRateStart`, right before the handler, after the fire check).
 */
async function runRateLimited(
  ctx: WorkerContext,
  run: Parameters<typeof runClaimedFire>[1],
  fire: ScheduleFire | undefined,
): Promise<MessageOutcome> {
  const waking = wakeForFreeSlotsOf(ctx, run.job.task, run.logger);
  const outcome = await runClaimedFire(ctx, run, fire);
  await waking;
  return outcome;
}

/**
 * A woken job claimed (or ended without a run): its line entry goes, as its waker would have taken it
 * out after the send. A waker that died in between would otherwise leave the entry held, counted as a
 * job on its way, until its hold ends (`WAKE_LEASE_MS`), while the tick's fallback wakes nobody for
 * that slot.
 */
async function leaveLineOfWaker(
  ctx: WorkerContext,
  message: JobMessageBody,
  wokenBy: string,
  logger: Logger,
): Promise<void> {
  await ctx.deps.jobStore
    .leaveLine(message.job.task, linePosition(message), wokenBy)
    .catch((error: unknown) => {
      logger.warn('woken job not taken out of its line; its hold ends on its own', { error });
    });
}
