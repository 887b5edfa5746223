import { describe, expect, it } from 'vitest';
import type { WireJob } from '../../lib/core/admin-contract';
import { historyLines, recentResults } from '../../lib/dashboard/page/results-view';

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

describe('dashboard results: failures only', () => {
  const finished = (id: string, status: WireJob['status'], at: string) =>
    ({ id, status, finished_at: at }) as WireJob;
  const jobs = [
    finished('ok', 'success', '2026-03-02T09:00:03Z'),
    finished('bad', 'error', '2026-03-02T09:00:02Z'),
    finished('late', 'missed_start_deadline', '2026-03-02T09:00:01Z'),
    { id: 'running', status: 'running', finished_at: null } as WireJob,
  ];

  it('shows every finished job, or only those that did not succeed', () => {
    expect(recentResults(jobs).map((job) => job.id)).toEqual(['ok', 'bad', 'late']);
    expect(recentResults(jobs, true).map((job) => job.id)).toEqual(['bad', 'late']);
  });
});
