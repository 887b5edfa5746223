import { z } from 'zod';
import type { JsonValue } from '../json';
import type { JobRequest } from '../ports/job-store';
import { DEFAULT_PRIORITY, PRIORITIES } from './priority';
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
    /** Absent for `normal`. */
    priority: z.enum(PRIORITIES).optional(),
  }),
  /** Absent in messages sent before revisions existed, and in messages of jobs that are no schedule fires. */
  revision: z.object({ createdAt: epochMs, version: z.number().int().positive() }).optional(),
});

/** What a queue message carries: the job to run and the attempt this delivery is for. */
export interface JobMessageBody {
  job: JobRequest;
  attempt: number;
  /** For a schedule fire: the revision of the schedule it was sent under (the worker checks it). */
  revision?: ScheduleRevision;
}

/** The message body as JSON, with the format version. */
export function encodeJobMessage(body: JobMessageBody): string {
  const { id, task, payload, origin, scheduleId, fireTime, runAt, startDeadline, priority } = body.job;
  return JSON.stringify({
    v: JOB_MESSAGE_VERSION,
    attempt: body.attempt,
    job: {
      id,
      task,
      payload,
      origin,
      scheduleId,
      fireTime,
      runAt,
      startDeadline,
      ...(priority && priority !== DEFAULT_PRIORITY && { priority }),
    },
    ...(body.revision && {
      revision: { createdAt: body.revision.createdAt, version: body.revision.version },
    }),
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
  const { attempt, job, revision } = parsed.data;
  return { ok: true, message: { attempt, job, ...(revision && { revision }) } };
}
