import * as z from 'zod';
import type { JsonValue } from '../json';
import type { JobRequest } from '../ports/job-store';
import { DEFAULT_PRIORITY, PRIORITIES } from './priority';
import type { RunSettingOverrides } from './run-settings';
import type { ScheduleRevision } from './schedule-revision';

/** Bumped on any incompatible change of the message body; workers reject versions they do not know. */
export const JOB_MESSAGE_VERSION = 1;

const jsonValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(jsonValue),
    z.record(z.string(), jsonValue),
  ]),
);

const epochMs = z.number().int().nonnegative();

const jobMessageBody = z.object({
  v: z.literal(JOB_MESSAGE_VERSION),
  attempt: z.number().int().positive(),
  job: z.object({
    id: z.string().min(1),
    task: z.string().min(1),
    payload: jsonValue,
    origin: z.enum(['schedule', 'run_now', 'direct']),
    scheduleId: z.string().min(1).nullable(),
    fireTime: epochMs.nullable(),
    runAt: epochMs,
    startDeadline: epochMs.nullable(),
    /** Absent when the job overrides none of its task's run settings. */
    overrides: z
      .object({
        maxAttempts: z.number().int().positive().optional(),
        backoffSeconds: z.number().int().nonnegative().optional(),
        timeoutSeconds: z.number().int().positive().optional(),
        resultTtlSeconds: z.number().int().positive().optional(),
      })
      .optional(),
    /** Absent when the job has no metadata. */
    metadata: z.record(z.string(), z.string()).optional(),
    /** Attempts before a `retry_job` (absent: 0): the retry policy counts from here. */
    attemptBase: z.number().int().positive().optional(),
    /** Absent for `normal`. */
    priority: z.enum(PRIORITIES).optional(),
    /** Absent for jobs no `createJob` made (fires). */
    createToken: z.string().min(1).max(64).optional(),
  }),
  /** Every first delivery of a schedule's fire carries it (`decodeJobMessage` refuses one without). */
  revision: z
    .object({ createdAt: epochMs, version: z.number().int().positive(), firesFrom: epochMs })
    .optional(),
  taskLogged: z.literal(true).optional(),
  woken: z.literal(true).optional(),
});

/** What a queue message carries: the job to run and the attempt this delivery is for. */
export interface JobMessageBody {
  job: JobRequest;
  attempt: number;
  /** For a schedule fire: the revision of the schedule it was sent under (the worker checks it). */
  revision?: ScheduleRevision;
  /**
   * The sender noted this fire in its task's fire log before sending it (`JobStore.logFiresToSend`): its
   * job can be listed by task from there, without an index entry of its own.
   */
  taskLogged?: true;
  /**
   * Woken from its task's line (ADR 0009): its woken entry (at `linePosition` of the message) holds the
   * slot it was handed, which its claim takes; a delivery that does not claim hands it on.
   */
  woken?: true;
}

/**
 * Exactly the fields of a job request (of a stored job, say): `attemptBase` only when above 0,
 * `overrides` and `metadata` only when there are any, `priority` only when not the default.
 */
export function jobRequestFields(job: JobRequest): JobRequest {
  const {
    id,
    task,
    payload,
    origin,
    scheduleId,
    fireTime,
    runAt,
    startDeadline,
    attemptBase,
    overrides,
    metadata,
    priority,
    createToken,
  } = job;
  return {
    id,
    task,
    payload,
    origin,
    scheduleId,
    fireTime,
    runAt,
    startDeadline,
    ...(attemptBase !== undefined && attemptBase > 0 && { attemptBase }),
    ...(overrides && { overrides }),
    ...(metadata && { metadata }),
    ...(priority && priority !== DEFAULT_PRIORITY && { priority }),
    ...(createToken !== undefined && { createToken }),
  };
}

/** The message body as JSON, with the format version. */
export function encodeJobMessage(body: JobMessageBody): string {
  return JSON.stringify({
    v: JOB_MESSAGE_VERSION,
    attempt: body.attempt,
    job: jobRequestFields(body.job),
    ...(body.revision && {
      revision: {
        createdAt: body.revision.createdAt,
        version: body.revision.version,
        ...(body.revision.firesFrom !== undefined && { firesFrom: body.revision.firesFrom }),
      },
    }),
    ...(body.taskLogged && { taskLogged: true }),
    ...(body.woken && { woken: true }),
  });
}

export type DecodedJobMessage = { ok: true; message: JobMessageBody } | { ok: false; reason: string };

/**
 * Parses and validates a message body. The reason names the offending fields but never quotes
 * their values, so it can be logged without leaking payloads.
 */
export function decodeJobMessage(text: string): DecodedJobMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'body is not JSON' };
  }
  const parsed = jobMessageBody.safeParse(raw);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.code}`);
    return { ok: false, reason: `invalid job message (${fields.join('; ')})` };
  }
  const { attempt, job: decoded, revision, taskLogged, woken } = parsed.data;
  if (decoded.origin === 'schedule' && attempt === 1 && !revision) {
    return { ok: false, reason: 'invalid job message (revision: required for the first delivery of a fire)' };
  }
  const { overrides, metadata, ...job } = decoded;
  const extras = {
    ...(overrides && { overrides: overrides as RunSettingOverrides }),
    ...(metadata && { metadata }),
  };
  return {
    ok: true,
    message: {
      attempt,
      job: { ...job, ...extras },
      ...(revision && { revision }),
      ...(taskLogged && { taskLogged }),
      ...(woken && { woken }),
    },
  };
}
