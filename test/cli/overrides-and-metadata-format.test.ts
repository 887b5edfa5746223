import { describe, expect, it } from 'vitest';
import { renderJobDetails } from '../../lib/cli/format/jobs';
import { wireJob } from '../../lib/core/admin-contract';
import { ManualClock } from '../../lib/core/clock';
import type { Job } from '../../lib/core/model/job';

const T0 = Date.parse('2026-03-02T09:00:00Z');

function job(fields: Partial<Job>): Job {
  return {
    id: 'job-1',
    task: 'sync',
    payload: {},
    origin: 'direct',
    scheduleId: null,
    fireTime: null,
    runAt: T0,
    startDeadline: null,
    attempt: 0,
    status: 'queued',
    leaseOwner: null,
    leaseUntil: null,
    holdsSlot: false,
    createdAt: T0,
    startedAt: null,
    finishedAt: null,
    result: null,
    expiresAt: null,
    ...fields,
  };
}

describe('sundial jobs get: overrides and metadata', () => {
  it('shows the settings a job overrides and its metadata, by key', () => {
    const shown = renderJobDetails(
      wireJob(
        job({
          overrides: { maxAttempts: 1, timeoutSeconds: 10 },
          metadata: { tier: 'gold', tenant: 'acme' },
        }),
      ),
      'UTC',
      new ManualClock(T0),
    );

    expect(shown).toMatch(/^max attempts\s+1 \(overrides the task's\)$/m);
    expect(shown).toMatch(/^timeout\s+10 s \(overrides the task's\)$/m);
    expect(shown).toMatch(/^metadata\s+tenant=acme, tier=gold$/m);
    expect(shown).not.toMatch(/^backoff/m);
  });

  it('shows neither for a job without them', () => {
    const shown = renderJobDetails(wireJob(job({})), 'UTC', new ManualClock(T0));

    expect(shown).not.toMatch(/overrides the task's|^metadata/m);
  });
});

describe('sundial jobs get: what a job waits on', () => {
  it('says which limits of its task have no room for a job that has not started', () => {
    const shown = renderJobDetails(
      wireJob(job({}), [
        { constraint: 'paused' },
        { constraint: 'max_running_jobs', running: 2, limit: 2 },
        { constraint: 'rate_limit', nextStartAt: T0 + 4_000 },
      ]),
      'UTC',
      new ManualClock(T0),
    );

    expect(shown).toMatch(
      /^waiting on\s+its task is paused; maxRunningJobs \(2 \/ 2 running\); rateLimit \(next start Mon 2026-03-02 09:00:04 UTC \(in 4 s\)\)$/m,
    );
    expect(renderJobDetails(wireJob(job({})), 'UTC', new ManualClock(T0))).not.toMatch(/^waiting on/m);
  });
});
