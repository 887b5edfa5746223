import { beforeEach, expect, it } from 'vitest';
import type { JsonValue } from '../../lib/core/json';
import { LIMITS } from '../../lib/core/limits';
import { JOB_HISTORY_LIMIT } from '../../lib/core/model/job';
import { isJobId, MAX_JOB_ID_LENGTH } from '../../lib/core/model/job-id';
import { METADATA_LIMITS } from '../../lib/core/model/metadata';
import { payloadProblem, STORABLE_MAX_DEPTH } from '../../lib/core/storable-json';
import { jobRequest, MINUTE, range, SECOND, type Store, type StoreFixture, T0 } from './store-fixtures';

/** Jobs at the size limits: the longest id, payloads at the storability rule's edges, full results. */
export function jobSizeContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    ({ store } = fixture());
  });

  it('keeps a job whose id is as long as the job-id grammar allows', async () => {
    const id = `${'s'.repeat(LIMITS.idLength)}@${'r'.repeat(MAX_JOB_ID_LENGTH - LIMITS.idLength - 1)}`;

    await store.createJob({ job: jobRequest(id), conflictPolicy: 'exception', now: T0, parkUntilDue: false });

    expect(isJobId(id)).toBe(true);
    expect((await store.getJob(id, T0))?.id).toBe(id);
  });

  it('keeps a payload at the edges of the core storability rule unchanged', async () => {
    let nested: JsonValue = 'deepest';
    for (let depth = 1; depth < STORABLE_MAX_DEPTH; depth++) nested = { n: nested };
    const payload: JsonValue = {
      largest: Number.MAX_SAFE_INTEGER,
      smallest: -Number.MAX_SAFE_INTEGER,
      tiny: 1e-130,
      zero: 0,
      nested,
      ['k'.repeat(65_535)]: true,
      text: 'x'.repeat(LIMITS.payloadBytes - 65_535 - 1_000),
    };

    await store.createJob({
      job: jobRequest('edges', { payload }),
      conflictPolicy: 'exception',
      now: T0,
      parkUntilDue: false,
    });

    expect(payloadProblem(payload)).toBeUndefined();
    expect((await store.getJob('edges', T0))?.payload).toEqual(payload);
  });

  it('stores a success whose payload and return value are at their limits, beside full metadata and history', async () => {
    // The largest list of small numbers both rules accept (3 bytes each as stored, 2 as JSON)
    const ones = (limit: number) => Array.from({ length: Math.floor((limit - 3) / 3) }, () => 1);
    const payload = ones(LIMITS.payloadBytes);
    const returnValue = ones(LIMITS.returnValueBytes);
    const metadata = Object.fromEntries(
      range(METADATA_LIMITS.keys).map((n) => [
        `${n}`.padStart(METADATA_LIMITS.keyLength, 'k'),
        '€'.repeat(METADATA_LIMITS.valueLength),
      ]),
    );
    expect([payloadProblem(payload), payloadProblem(returnValue)]).toEqual([undefined, undefined]);
    const job = jobRequest('big', { payload, metadata });
    let now = T0;
    // retry_job after each failed attempt keeps a history entry, its message cut at 1,000 characters
    for (const attempt of range(JOB_HISTORY_LIMIT + 1).map((n) => n + 1)) {
      await store.claimJob({ job, attempt, owner: 'w', now, leaseUntil: now + MINUTE });
      const error = { type: 'Error', message: '€'.repeat(4_000) };
      const result = { outcome: 'error' as const, startedAt: now, finishedAt: now + 1, attempt, error };
      await store.finishJob({ jobId: 'big', owner: 'w', result, expiresAt: now + 60 * MINUTE });
      now += SECOND;
      await store.retryEndedJob({ jobId: 'big', now, owner: 'admin', leaseUntil: now + 1 });
      await store.markJobSent('big', 'admin');
      now += SECOND;
    }

    const attempt = JOB_HISTORY_LIMIT + 2;
    await store.claimJob({ job, attempt, owner: 'w', now, leaseUntil: now + MINUTE });
    const result = { outcome: 'success' as const, startedAt: now, finishedAt: now + 1, attempt, returnValue };
    await store.finishJob({ jobId: 'big', owner: 'w', result, expiresAt: now + 60 * MINUTE });

    const stored = await store.getJob('big', now);
    expect(stored?.result?.returnValue).toEqual(returnValue);
    expect(stored?.payload).toEqual(payload);
    expect(stored?.history).toHaveLength(JOB_HISTORY_LIMIT);
  });
}
