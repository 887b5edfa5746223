import { describe, expect, it } from 'vitest';
import { decodeJobMessage, encodeJobMessage } from '../../../lib/core/model/job-message';
import type { JobRequest } from '../../../lib/core/ports/job-store';

const job: JobRequest = {
  id: 'job-1',
  task: 'echo',
  payload: { n: 1 },
  origin: 'direct',
  scheduleId: null,
  fireTime: null,
  runAt: 1_772_442_000_000,
  startDeadline: null,
};

describe('job messages: overrides and metadata', () => {
  it('carry a job’s overrides and metadata through the queue', () => {
    const body = encodeJobMessage({
      job: { ...job, overrides: { maxAttempts: 2, timeoutSeconds: 5 }, metadata: { tenant: 'acme' } },
      attempt: 1,
    });

    expect(decodeJobMessage(body)).toEqual({
      ok: true,
      message: {
        attempt: 1,
        job: { ...job, overrides: { maxAttempts: 2, timeoutSeconds: 5 }, metadata: { tenant: 'acme' } },
      },
    });
  });

  it('leave both out for a job without them, as messages sent before they existed read', () => {
    const body = encodeJobMessage({ job, attempt: 1 });

    expect(JSON.parse(body).job).not.toHaveProperty('overrides');
    expect(JSON.parse(body).job).not.toHaveProperty('metadata');
    expect(decodeJobMessage(body)).toEqual({ ok: true, message: { attempt: 1, job } });
  });

  it('reject overrides and metadata of the wrong shape, naming the field', () => {
    const body = (extra: Record<string, unknown>) =>
      JSON.stringify({ v: 1, attempt: 1, job: { ...job, ...extra } });

    expect(decodeJobMessage(body({ overrides: { maxAttempts: 0 } }))).toMatchObject({
      ok: false,
      reason: expect.stringContaining('job.overrides.maxAttempts'),
    });
    expect(decodeJobMessage(body({ metadata: { tenant: 7 } }))).toMatchObject({
      ok: false,
      reason: expect.stringContaining('job.metadata.tenant'),
    });
  });
});

describe('job messages: a checked fire', () => {
  const fire: JobRequest = { ...job, origin: 'schedule', scheduleId: 's', fireTime: job.runAt };
  const revision = { createdAt: 1_772_441_000_000, version: 2, firesFrom: 1_772_441_000_000 };

  it('carries the revision with a later attempt (a takeover of a run whose check failed), which is checked', () => {
    const body = encodeJobMessage({ job: fire, attempt: 2, revision });

    expect(decodeJobMessage(body)).toEqual({ ok: true, message: { job: fire, attempt: 2, revision } });
  });

  it("refuses a fire's first delivery without the revision its check needs, naming the field", () => {
    const body = JSON.stringify({ v: 1, attempt: 1, job: fire });

    expect(decodeJobMessage(body)).toMatchObject({ ok: false, reason: expect.stringContaining('revision') });
  });
});
