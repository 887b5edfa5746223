import type { EpochMs } from '../../core/clock';
import type { Delivery } from '../../core/delivery/delivery';
import type { FireCancellation } from '../../core/delivery/fire-verdict';
import { nextRunStep, type Run, type RunEnding } from '../../core/delivery/run';
import { LeaseLostError } from '../../core/errors';
import type { JobResult } from '../../core/model/job';
import { retryMessage } from '../../core/model/job-messages';
import type { JobEvent } from '../../core/ports/event-publisher';
import { parksBeyondQueueDelay } from '../../core/ports/job-queue';
import type { ClaimOutcome, RunEnd } from '../../core/ports/job-store';
import { wakeForNextStart } from '../flow/rate-wake';
import { resendOverdueWoken } from '../flow/woken';
import type { Logger } from '../observability/logger';
import { resultTtlSecondsOf, type TaskDefinition } from '../tasks/define-task';
import { definitionForJob } from '../tasks/effective-definition';
import { retryDelayMs } from './backoff';
import { watchCancellation } from './cancel-watch';
import { readRemoval } from './fire-reads';
import { heldSlotOf, wakeHandedOn } from './hand-on';
import { alignRateStart } from './rate-start';
import { storeFinalResult } from './result-writes';
import { runTaskHandler } from './run-handler';
import type { WorkerContext } from './worker-context';
import { writeWithRetries } from './write-retries';

/**
 * Runs a claimed job (ADR 0009): asks `nextRunStep` what comes next and performs it until the run is
 * done — a fire's schedule check, a capped start's count, a cancellation, the handler, the ending. A
 * lost lease (the reaper or a takeover took the run) ends it: the run is someone else's. Returns what
 * the delivery needs to go on: whether the message must come back, and whether the check found the
 * fire to be its finished schedule's last.
 */
export async function runJob(
  ctx: WorkerContext,
  delivery: Delivery,
  claimed: Extract<ClaimOutcome, { status: 'claimed' }>,
  logger: Logger,
): Promise<{ keepMessage: boolean }> {
  const made = delivery.claim;
  if (!made) throw new Error('a run without its claim');
  const definition = definitionOf(ctx, delivery);
  let run: Run = {
    delivery,
    owner: made.owner,
    startedAt: claimed.job.startedAt ?? made.at,
    claimedAt: made.at,
    leaseUntil: made.leaseUntil,
    reclaimed: claimed.reclaimed === true,
    countedBefore: claimed.countedRun === true,
    ...(claimed.job.cancelRequestedAt !== undefined && { cancelRequestedAt: claimed.job.cancelRequestedAt }),
  };
  const holdsSlot = claimed.job.holdsSlot;
  try {
    for (;;) {
      const step = nextRunStep(run, definition.retry, ctx.deps.clock.now());
      if (step.kind === 'done') return { keepMessage: step.keepMessage };
      run = await performRunStep(ctx, run, step, definition, holdsSlot, logger);
    }
  } catch (error) {
    if (!(error instanceof LeaseLostError)) throw error;
    logger.warn(
      'lease lost before the outcome was written; the reaper or a redelivery took this attempt over',
    );
    return { keepMessage: false };
  }
}

async function performRunStep(
  ctx: WorkerContext,
  run: Run,
  step: Exclude<ReturnType<typeof nextRunStep>, { kind: 'done' }>,
  definition: TaskDefinition,
  holdsSlot: boolean,
  logger: Logger,
): Promise<Run> {
  const { deps } = ctx;
  const { job } = run.delivery;
  const scheduleId = job.scheduleId ?? '';
  switch (step.kind) {
    case 'read_schedule':
      // Retried like the writes that end a run: giving up would leave the claim to its lease's end.
      return {
        ...run,
        live: {
          schedule: await writeWithRetries(ctx, run.leaseUntil, () =>
            deps.scheduleStore.getSchedule(scheduleId),
          ),
        },
      };
    case 'read_removal': {
      const { reads, fire } = run.delivery;
      if (!reads || !fire) throw new Error('a removal read without a fire check');
      const removed = await writeWithRetries(ctx, run.leaseUntil, () => readRemoval(ctx.deps, job, fire));
      return { ...run, delivery: { ...run.delivery, reads: { ...reads, removed } } };
    }
    case 'count_start': {
      const { schedule } = step;
      const counted = await writeWithRetries(ctx, run.leaseUntil, () =>
        deps.scheduleStore.startCappedRun({
          scheduleId: schedule.id,
          createdAt: schedule.createdAt,
          maxRuns: schedule.maxRuns ?? 0,
          jobId: job.id,
          owner: run.owner,
          fireTime: job.fireTime ?? job.runAt,
        }),
      );
      return { ...run, counted: counted === 'started' ? 'started' : counted === 'gone' ? 'gone' : 'full' };
    }
    case 'cancel':
      return cancelFire(ctx, run, step.cancellation, definition, holdsSlot, logger);
    case 'run_handler':
      return runHandler(ctx, run, definition, logger);
    case 'record':
      return record(ctx, run, step.ending, definition, holdsSlot, logger);
  }
}

/**
 * Wakes the line of a rate-limited task for its next start while this job runs (one job, arriving just
 * before that time) and runs the handler alongside: awaited first, the wake's store calls would delay
 * the handler's start past its pace (`alignRateStart`) whenever the store is slow, and each late start
 * takes a second start of the rate.
 */
async function runHandler(
  ctx: WorkerContext,
  run: Run,
  definition: TaskDefinition,
  logger: Logger,
): Promise<Run> {
  const wakingNext = definition.rateLimit
    ? wakeNextStart(ctx, run.delivery.job.task, logger)
    : Promise.resolve();
  try {
    return await startHandler(ctx, run, definition, logger);
  } finally {
    await wakingNext;
  }
}

/**
 * Runs the handler, its start aligned on the claim for a rate-limited task (`alignRateStart`, after the
 * fire check). A handler still running at the invocation's end (it ignored its signal) is recorded, and
 * the sandbox ended after the batch.
 */
async function startHandler(
  ctx: WorkerContext,
  run: Run,
  definition: TaskDefinition,
  logger: Logger,
): Promise<Run> {
  const { deps } = ctx;
  const { job, attempt } = run.delivery;
  ctx.counters.startLagMs.push(Math.max(0, run.startedAt - job.runAt));
  ctx.events.add(definition.events, eventOf(run, 'job.started', run.startedAt));
  await alignRateStart(
    ctx,
    { task: job.task, claimedAt: run.claimedAt, leaseUntil: run.leaseUntil, rateLimit: definition.rateLimit },
    logger,
  );
  // The timeout counts from the handler's start, not the claim's: a slow (throttled) claim must not
  // eat the handler's time and turn a run that did its work into a timeout and a second run.
  const handlerStart = deps.clock.now();
  const sandboxEnd = handlerStart + ctx.remainingMs();
  const invocationEnd = sandboxEnd - deps.config.workerSafetyMarginMs;
  const deadline = Math.min(handlerStart + definition.timeoutSeconds * 1000, invocationEnd);
  const cancelWatch = watchCancellation(ctx, { jobId: job.id, owner: run.owner }, logger);
  const handler = await runTaskHandler({
    definition,
    payload: job.payload,
    context: {
      jobId: job.id,
      scheduleId: job.scheduleId,
      fireTime: job.fireTime === null ? null : new Date(job.fireTime),
      attempt,
      metadata: job.metadata ?? {},
      logger,
    },
    deadline,
    // The slot and lease stay held while a timed-out handler runs on (the lease covers it: `runLeaseUntil`).
    holdUntil: ctx.endsSandbox && Number.isFinite(invocationEnd) ? invocationEnd : null,
    clock: deps.clock,
    sleep: deps.sleep,
    onDeadline: () => ctx.onHandlerDeadline?.(job.id),
    cancel: cancelWatch.asked,
  }).finally(() => cancelWatch.stop());
  if (handler.stillRunning) {
    ctx.stillRunning.push(job.id);
    logger.error(
      'the handler ignored its abort signal and still runs at the end of the invocation; recording the timeout, then ending the sandbox',
    );
  }
  if (handler.cancelled) logger.info('cancel_job asked the running job to stop: its signal was aborted');
  return { ...run, handler: { ...handler, sandboxEnd } };
}

/**
 * Writes how the run ended, handing the slot it holds to the line's head in the same write (ADR 0009).
 * Another attempt: its message is sent before the job is marked `retrying`, so a crash in between
 * leaves a running job with an expired lease, which the reaper retries, never a `retrying` job without
 * a message; a retry that could not be sent keeps this message (after the lease it takes the run over).
 * A final result is stored as `storeFinalResult` has it (a handler is never run again because its
 * result could not be written).
 */
async function record(
  ctx: WorkerContext,
  run: Run,
  ending: RunEnding,
  definition: TaskDefinition,
  holdsSlot: boolean,
  logger: Logger,
): Promise<Run> {
  const { deps } = ctx;
  const { job, attempt } = run.delivery;
  const finishedAt = deps.clock.now();
  if (ending.kind === 'retry') {
    const counted = attempt - (job.attemptBase ?? 0);
    // A handler still running is stopped only when its sandbox ends: its retry must not start before.
    const retryNotBefore = run.handler?.stillRunning ? run.handler.sandboxEnd + 1_000 : 0;
    const retryAt = Math.max(
      finishedAt + retryDelayMs(definition.retry, counted, deps.random),
      retryNotBefore,
    );
    // The store parks retries beyond the queue's longest delay in the due index; the tick sends them.
    if (!parksBeyondQueueDelay(retryAt, finishedAt)) {
      const { failed } = await deps.queue.send([retryMessage(job, attempt + 1, retryAt, finishedAt)]);
      if (failed.length > 0) {
        logger.error('could not send the retry; the job is retried when its lease expires');
        return { ...run, recorded: { end: undefined }, keepMessage: true };
      }
    }
    const end = await writeWithRetries(ctx, run.leaseUntil, () =>
      deps.jobStore.retryJob({
        jobId: job.id,
        owner: run.owner,
        failedAttempt: attempt,
        error: ending.error,
        retryAt,
        now: finishedAt,
        ...(holdsSlot && { heldSlot: heldSlotOf(ctx, job.task) }),
      }),
    );
    ctx.counters.retried += 1;
    ctx.events.add(definition.events, {
      ...eventOf(run, 'job.retrying', finishedAt),
      result: { outcome: 'error', error: ending.error, startedAt: run.startedAt, finishedAt, attempt },
    });
    logger.warn('attempt failed; retrying', {
      errorType: ending.error.type,
      retryAt: new Date(retryAt).toISOString(),
    });
    await afterEnd(ctx, end, job.task, holdsSlot, logger, slotFreeAt(run));
    return { ...run, recorded: { end } };
  }
  const stored = await storeFinalResult(ctx, {
    jobId: job.id,
    owner: run.owner,
    leaseUntil: run.leaseUntil,
    result: { ...ending.result, finishedAt },
    expiresAt: finishedAt + resultTtlSecondsOf(definition, deps.config.defaultResultTtlSeconds) * 1000,
    ...(holdsSlot && { heldSlot: heldSlotOf(ctx, job.task) }),
    logger,
  });
  if (!stored) return { ...run, recorded: { end: undefined } };
  reportFinal(ctx, run, stored.result, definition, logger);
  await afterEnd(ctx, stored.end, job.task, holdsSlot, logger, slotFreeAt(run));
  return { ...run, recorded: { end: stored.end } };
}

function reportFinal(
  ctx: WorkerContext,
  run: Run,
  result: JobResult,
  definition: TaskDefinition,
  logger: Logger,
): void {
  if (result.outcome === 'success') {
    ctx.counters.succeeded += 1;
    ctx.events.add(definition.events, { ...eventOf(run, 'job.succeeded', result.finishedAt), result });
    logger.info('job succeeded', { durationMs: result.finishedAt - run.startedAt });
    return;
  }
  if (result.outcome === 'cancelled') {
    ctx.events.add(definition.events, { ...eventOf(run, 'job.cancelled', result.finishedAt), result });
    logger.info('job cancelled while it ran', { durationMs: result.finishedAt - run.startedAt });
    return;
  }
  ctx.counters.failed += 1;
  ctx.events.add(definition.events, { ...eventOf(run, 'job.failed', result.finishedAt), result });
  ctx.failures.add(run.delivery.job, result);
  logger.warn('job failed', { errorType: result.error?.type });
}

/**
 * A fire its schedule no longer wants as sent is finished as `cancelled` (reclaimably, unless its
 * schedule's `max_runs` fires started: a replacement, or a fire the schedule sends again after a resume
 * or a re-add, claims it again), its slot handed on. The cancellation is written before the replacement
 * is sent, and the message is kept when the send fails, so a crash in between leaves a message that
 * claims the job again and sends it then. `job.cancelled` is published when the job becomes cancelled,
 * not again by a delivery that reclaimed such a cancellation.
 */
async function cancelFire(
  ctx: WorkerContext,
  run: Run,
  cancellation: FireCancellation,
  definition: TaskDefinition,
  holdsSlot: boolean,
  logger: Logger,
): Promise<Run> {
  const { deps } = ctx;
  const { job, attempt } = run.delivery;
  const finishedAt = deps.clock.now();
  const result: JobResult = {
    outcome: 'cancelled',
    error: cancellation.error,
    startedAt: null,
    finishedAt,
    attempt,
  };
  const end = await writeWithRetries(ctx, run.leaseUntil, () =>
    deps.jobStore.finishJob({
      jobId: job.id,
      owner: run.owner,
      result,
      expiresAt: finishedAt + resultTtlSecondsOf(definition, deps.config.defaultResultTtlSeconds) * 1000,
      reclaimable: cancellation.reclaimable,
      ...(holdsSlot && { heldSlot: heldSlotOf(ctx, job.task) }),
    }),
  );
  await afterEnd(ctx, end, job.task, holdsSlot, logger);
  // Its claim took a start of a rate-limited task that no handler used: the line is woken for the next.
  if (definition.rateLimit) await wakeNextStart(ctx, job.task, logger);
  logger.info(
    run.cancelRequestedAt === undefined
      ? 'fire not run: its schedule changed after it was sent'
      : 'job not run: cancel_job asked for it while an earlier attempt ran',
    { reason: cancellation.error.type, ...(run.reclaimed && { cancelledBefore: true }) },
  );
  if (!run.reclaimed)
    ctx.events.add(definition.events, { ...eventOf(run, 'job.cancelled', finishedAt), result });
  if (!cancellation.replacement) return { ...run, cancelled: true };
  const { failed } = await deps.queue.send([cancellation.replacement]);
  if (failed.length === 0) return { ...run, cancelled: true };
  logger.warn('could not send the fire under the current schedule; the message comes back to try again');
  return { ...run, cancelled: true, keepMessage: true };
}

/**
 * When the slot of a run whose handler still runs (it ignored its signal) is free: once its sandbox has
 * ended, which stops it. The job the slot is handed to must not start before, beside it.
 */
function slotFreeAt(run: Run): EpochMs | undefined {
  return run.handler?.stillRunning ? run.handler.sandboxEnd + 1_000 : undefined;
}

/**
 * Wakes the job the run's slot was handed to (a slot goes back to the counter only when nobody waits,
 * ADR 0009): run next in this invocation, or its message sent. Overdue woken jobs of the task are sent again on the way (whoever touches the
 * task repairs them).
 */
async function afterEnd(
  ctx: WorkerContext,
  end: RunEnd,
  task: string,
  heldSlot: boolean,
  logger: Logger,
  notBefore?: EpochMs,
): Promise<void> {
  try {
    if (end.woken) await wakeHandedOn(ctx, end.woken, notBefore);
    if (heldSlot) await resendOverdueWoken(ctx.deps, task);
  } catch (error) {
    logger.warn('could not wake the next waiting job; the next worker or tick touching its task does', {
      error,
    });
  }
}

async function wakeNextStart(ctx: WorkerContext, task: string, logger: Logger): Promise<void> {
  try {
    const slots = await ctx.deps.jobStore.taskSlots(task);
    if (slots) await wakeForNextStart(ctx.deps, slots);
  } catch (error) {
    logger.warn("could not wake the line for the task's next start; the tick wakes it", { error });
  }
}

function eventOf(run: Run, type: JobEvent['type'], at: number): JobEvent {
  const { job, attempt } = run.delivery;
  return { type, jobId: job.id, task: job.task, scheduleId: job.scheduleId, attempt, at };
}

function definitionOf(ctx: WorkerContext, delivery: Delivery): TaskDefinition {
  const registered = ctx.registry.get(delivery.job.task);
  if (!registered) throw new Error(`task '${delivery.job.task}' is not registered`);
  return definitionForJob(registered.definition, delivery.job.overrides);
}
