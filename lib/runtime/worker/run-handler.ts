import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { Clock, EpochMs, Sleep } from '../../core/clock';
import { CANCELLED_ERROR_TYPE } from '../../core/delivery/run';
import { NonRetryableError } from '../../core/errors';
import type { JsonValue } from '../../core/json';
import type { JobError } from '../../core/model/job';
import type { JobContext, TaskDefinition } from '../tasks/define-task';
import { checkReturnValue } from './return-value';

export type HandlerOutcome =
  | { ok: true; value: JsonValue | undefined }
  | { ok: false; error: JobError; retryable: boolean };

export interface HandlerRun {
  definition: TaskDefinition;
  payload: JsonValue;
  context: Omit<JobContext, 'signal' | 'deadline'>;
  /** When the handler's signal is aborted and its run counts as timed out. */
  deadline: EpochMs;
  /**
   * How long past the deadline to wait for a handler that ignores its signal: until this instant, or
   * (null) until it settles. The run's slot and lease stay held meanwhile.
   */
  holdUntil: EpochMs | null;
  clock: Clock;
  sleep: Sleep;
  /** Told when the deadline passes before the handler settled, as its signal is aborted. */
  onDeadline?: () => void;
  /** Aborted when `cancel_job` asks the run to stop: the handler's signal is aborted then too. */
  cancel?: AbortSignal;
}

export interface HandlerRunEnd {
  outcome: HandlerOutcome;
  /** The handler ignored its signal and had not settled at `holdUntil`: it may still be running. */
  stillRunning: boolean;
  /** `cancel` stopped it before it settled: the outcome is a `CancelledError` saying how it settled. */
  cancelled?: true;
}

const MAX_MESSAGE_CHARS = 4_000;
const MAX_STACK_CHARS = 8_000;
const MAX_TYPE_CHARS = 200;

/**
 * Runs a task's handler: validates the payload with the task's schema (the handler gets the parsed
 * value), and checks the return value. At the deadline it aborts `context.signal` and the run is a
 * retryable `TimeoutError`, but the handler is waited for until it settles (or `holdUntil`), so a handler
 * that ignores its signal never runs beside its own retry. Never throws: every failure becomes an error
 * outcome saying whether to retry.
 */
export async function runTaskHandler(run: HandlerRun): Promise<HandlerRunEnd> {
  const payload = await parsePayload(run.definition.payloadSchema, run.payload);
  if (!payload.ok) return { outcome: payload, stillRunning: false };

  const controller = new AbortController();
  const budgetMs = Math.max(0, run.deadline - run.clock.now());
  const finished = callHandler(run, payload.value, controller.signal);
  const inTime = await settledWithin(run.sleep, finished, budgetMs, run.cancel);
  if (inTime.settled) return { outcome: inTime.value, stillRunning: false };
  if (run.cancel?.aborted) return stopCancelled(run, controller, finished);

  const timeout = `handler did not finish within ${budgetMs} ms (the task's timeout or the Lambda's remaining time)`;
  const late = await afterAbort(
    run,
    controller,
    finished,
    namedError('TimeoutError', timeout),
    run.onDeadline,
  );
  return {
    outcome: {
      ok: false,
      error: { type: 'TimeoutError', message: `${timeout}; ${late.afterwards}` },
      retryable: true,
    },
    stillRunning: late.stillRunning,
  };
}

/**
 * `cancel_job` asked the run to stop: the handler's signal is aborted, and the handler waited for as at
 * its deadline. The run ends `cancelled` however the handler settles (its error says how).
 */
async function stopCancelled(
  run: HandlerRun,
  controller: AbortController,
  finished: Promise<HandlerOutcome>,
): Promise<HandlerRunEnd> {
  const asked = 'cancel_job asked the running job to stop';
  const late = await afterAbort(run, controller, finished, namedError(CANCELLED_ERROR_TYPE, asked));
  const how =
    late.outcome === undefined
      ? ''
      : late.outcome.ok
        ? ' (it returned)'
        : ` (it threw ${late.outcome.error.type})`;
  return {
    outcome: {
      ok: false,
      error: { type: CANCELLED_ERROR_TYPE, message: `${asked}; ${late.afterwards}${how}` },
      retryable: false,
    },
    stillRunning: late.stillRunning,
    cancelled: true,
  };
}

/**
 * Aborts the handler's signal with `reason` (telling `onAborted`) and waits for the handler to settle:
 * until `holdUntil`, or (null) however long it takes. Says how it went.
 */
async function afterAbort(
  run: HandlerRun,
  controller: AbortController,
  finished: Promise<HandlerOutcome>,
  reason: Error,
  onAborted?: () => void,
): Promise<{ afterwards: string; stillRunning: boolean; outcome?: HandlerOutcome }> {
  controller.abort(reason);
  onAborted?.();
  const abortedAt = run.clock.now();
  const late =
    run.holdUntil === null
      ? { settled: true as const, value: await finished }
      : await settledWithin(run.sleep, finished, Math.max(0, run.holdUntil - abortedAt));
  if (!late.settled) {
    return {
      afterwards: 'it ignored its abort signal and was still running at the end of the invocation',
      stillRunning: true,
    };
  }
  return {
    afterwards: `it settled ${run.clock.now() - abortedAt} ms after its signal was aborted`,
    stillRunning: false,
    outcome: late.value,
  };
}

function namedError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

/** Calls the handler and turns how it ended into an outcome; never rejects. */
async function callHandler(run: HandlerRun, payload: unknown, signal: AbortSignal): Promise<HandlerOutcome> {
  try {
    const value = await run.definition.handler(payload, {
      ...run.context,
      deadline: new Date(run.deadline),
      signal,
    });
    const checked = checkReturnValue(value);
    if (checked.ok) return { ok: true, value: checked.value };
    return {
      ok: false,
      error: { type: 'InvalidReturnValueError', message: checked.problem },
      retryable: false,
    };
  } catch (error) {
    return { ok: false, error: toJobError(error), retryable: !isNonRetryable(error) };
  }
}

type Settled<T> = { settled: true; value: T } | { settled: false };

/**
 * What `promise` resolved to, if it did within `ms` and before `stop` was aborted. The stop is raced on
 * its own: a `Sleep` may drop an aborted wait without resolving it.
 */
async function settledWithin<T>(
  sleep: Sleep,
  promise: Promise<T>,
  ms: number,
  stop?: AbortSignal,
): Promise<Settled<T>> {
  const wait = new AbortController();
  const notSettled: Settled<T> = { settled: false };
  const expired = sleep(ms, wait.signal).then(() => notSettled);
  const stopped = new Promise<Settled<T>>((resolve) => {
    if (stop?.aborted) resolve(notSettled);
    stop?.addEventListener('abort', () => resolve(notSettled), { once: true, signal: wait.signal });
  });
  try {
    return await Promise.race([
      promise.then((value): Settled<T> => ({ settled: true, value })),
      expired,
      stopped,
    ]);
  } finally {
    wait.abort();
  }
}

async function parsePayload(
  schema: StandardSchemaV1 | null,
  payload: JsonValue,
): Promise<{ ok: true; value: unknown } | Extract<HandlerOutcome, { ok: false }>> {
  if (!schema) return { ok: true, value: payload };
  const result = await schema['~standard'].validate(payload);
  if (!result.issues) return { ok: true, value: result.value };
  const issues = result.issues.map((issue) => {
    const path = (issue.path ?? []).map((segment) =>
      String(typeof segment === 'object' ? segment.key : segment),
    );
    return `${path.join('.') || '(payload)'}: ${issue.message}`;
  });
  return {
    ok: false,
    error: {
      type: 'InvalidPayloadError',
      message: `payload does not match the task's payloadSchema: ${issues.join('; ')}`,
    },
    retryable: false,
  };
}

function isNonRetryable(error: unknown): boolean {
  return error instanceof NonRetryableError || (error as { code?: unknown } | null)?.code === 'non_retryable';
}

/**
 * The error as stored in the result: type (class name), message and stack, bounded in size. Total: a
 * thrown value without `toString`, or an Error whose fields are not strings (or throw when read), is
 * described as text rather than failing the run's bookkeeping.
 */
export function toJobError(error: unknown): JobError {
  try {
    return describeThrown(error);
  } catch {
    return { type: 'NonErrorThrown', message: 'handler threw a value that cannot be read' };
  }
}

function describeThrown(error: unknown): JobError {
  if (!(error instanceof Error)) {
    return {
      type: 'NonErrorThrown',
      message: truncate(`handler threw a non-Error value: ${textOf(error)}`, MAX_MESSAGE_CHARS),
    };
  }
  const stack = textOf(field(error, 'stack') ?? '');
  return {
    type: truncate(textOf(field(error, 'name') ?? '') || 'Error', MAX_TYPE_CHARS),
    message: truncate(textOf(field(error, 'message') ?? ''), MAX_MESSAGE_CHARS),
    ...(stack ? { stack: truncate(stack, MAX_STACK_CHARS) } : {}),
  };
}

function field(error: Error, name: 'name' | 'message' | 'stack'): unknown {
  try {
    return error[name];
  } catch {
    return undefined;
  }
}

/** `value` as text; a value `String` cannot convert (no prototype, a throwing `toString`) by its tag. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}
