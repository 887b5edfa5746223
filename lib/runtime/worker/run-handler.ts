import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { Clock, EpochMs } from '../../core/clock';
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
  deadline: EpochMs;
  clock: Clock;
}

const MAX_MESSAGE_CHARS = 4_000;
const MAX_STACK_CHARS = 8_000;

/**
 * Runs a task's handler: validates the payload with the task's schema (the handler gets the parsed
 * value), aborts `context.signal` at the deadline and stops waiting for the handler then, and checks
 * the return value. Never throws: every failure becomes an error outcome saying whether to retry.
 */
export async function runTaskHandler(run: HandlerRun): Promise<HandlerOutcome> {
  const payload = await parsePayload(run.definition.payloadSchema, run.payload);
  if (!payload.ok) return payload;

  const controller = new AbortController();
  const budgetMs = Math.max(0, run.deadline - run.clock.now());
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<HandlerOutcome>((resolve) => {
    timer = setTimeout(() => {
      const error = new Error(
        `handler did not finish within ${budgetMs} ms (the task's timeout or the Lambda's remaining time)`,
      );
      error.name = 'TimeoutError';
      controller.abort(error);
      resolve({ ok: false, error: { type: 'TimeoutError', message: error.message }, retryable: true });
    }, budgetMs);
  });
  const finished = (async (): Promise<HandlerOutcome> => {
    try {
      const value = await run.definition.handler(payload.value, {
        ...run.context,
        deadline: new Date(run.deadline),
        signal: controller.signal,
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
  })();
  try {
    return await Promise.race([finished, timedOut]);
  } finally {
    clearTimeout(timer);
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

/** The error as stored in the result: type (class name), message and stack, bounded in size. */
export function toJobError(error: unknown): JobError {
  if (!(error instanceof Error)) {
    return {
      type: 'NonErrorThrown',
      message: truncate(`handler threw a non-Error value: ${String(error)}`, MAX_MESSAGE_CHARS),
    };
  }
  return {
    type: error.name || 'Error',
    message: truncate(error.message, MAX_MESSAGE_CHARS),
    ...(error.stack ? { stack: truncate(error.stack, MAX_STACK_CHARS) } : {}),
  };
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}
