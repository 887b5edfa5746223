// Fire lag of recent scheduled jobs: started_at − fire_time, as a histogram with p50 and p99.

import type { WireJob } from '../../core/admin-contract';
import { compactDuration } from '../../core/format/durations';
import { barCell, element, setText } from './dom';

/** Upper bounds in ms of each bucket; the last one is open. */
const BUCKETS: ReadonlyArray<readonly [number, string]> = [
  [100, '< 100 ms'],
  [250, '100–250 ms'],
  [500, '250–500 ms'],
  [1000, '0.5–1 s'],
  [2000, '1–2 s'],
  [5000, '2–5 s'],
  [30000, '5–30 s'],
  [Number.POSITIVE_INFINITY, '≥ 30 s'],
];

/** Lags in ms of the jobs that ran for a fire time (schedule fires that have started). */
export function fireLags(jobs: readonly WireJob[]): number[] {
  return jobs.flatMap((job) =>
    job.fire_time && job.started_at ? [Date.parse(job.started_at) - Date.parse(job.fire_time)] : [],
  );
}

function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? 0;
}

export function createLagView(body: HTMLTableSectionElement, summary: HTMLElement) {
  const rows = BUCKETS.map(([, label]) => {
    const row = element('tr');
    const name = element('th', '', label);
    name.scope = 'row';
    const count = element('td', '', '0');
    const { cell, fill } = barCell();
    row.append(name, count, cell);
    body.append(row);
    return { count, fill };
  });

  return {
    render(lags: readonly number[]): void {
      const counts = BUCKETS.map(() => 0);
      for (const lag of lags) {
        const bucket = BUCKETS.findIndex(([bound]) => Math.max(0, lag) < bound);
        counts[bucket] = (counts[bucket] ?? 0) + 1;
      }
      const most = Math.max(1, ...counts);
      rows.forEach((row, index) => {
        const count = counts[index] ?? 0;
        setText(row.count, String(count));
        row.fill.style.width = `${Math.round((count / most) * 100)}%`;
      });
      const sorted = [...lags].sort((a, b) => a - b);
      const p = (fraction: number) => compactDuration(percentile(sorted, fraction) / 1000);
      setText(
        summary,
        lags.length === 0
          ? 'No scheduled job has started yet.'
          : `${lags.length} recent scheduled jobs: p50 ${p(0.5)}, p99 ${p(0.99)}.`,
      );
    },
  };
}
