import { describe, expect, it } from 'vitest';
import type { WireJob } from '../../lib/core/admin-contract';
import { historyLines } from '../../lib/dashboard/page/results-view';

const job = (history?: WireJob['history']) => ({ id: 'j', ...(history && { history }) }) as WireJob;

describe('dashboard results: a retried job’s history', () => {
  it('lists its earlier runs, oldest first, with their errors', () => {
    expect(
      historyLines(
        job([
          {
            outcome: 'error',
            error: { type: 'Boom', message: 'disk full' },
            started_at: '2026-03-02T09:00:00Z',
            finished_at: '2026-03-02T09:00:01Z',
            duration_seconds: 1,
            attempt: 1,
          },
          {
            outcome: 'missed_start_deadline',
            started_at: null,
            finished_at: '2026-03-02T10:00:00Z',
            duration_seconds: null,
            attempt: 2,
          },
        ]),
      ),
    ).toEqual([
      'attempt 1: error (Boom: disk full) at 2026-03-02T09:00:01Z',
      'attempt 2: missed start deadline at 2026-03-02T10:00:00Z',
    ]);
  });

  it('shows nothing for a job never retried', () => {
    expect(historyLines(job())).toEqual([]);
  });
});
