// Fire lag of recent scheduled jobs: started_at − fire_time, as a histogram with p50 and p99.

import { duration, element, setText } from './format.js';

/** Upper bounds in ms of each bucket; the last one is open. */
const BUCKETS = [
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
export function fireLags(jobs) {
  return jobs
    .filter((job) => job.fire_time && job.started_at)
    .map((job) => Date.parse(job.started_at) - Date.parse(job.fire_time));
}

function percentile(sorted, fraction) {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1);
  return sorted[Math.max(0, index)];
}

export function createLagView(body, summary) {
  const rows = BUCKETS.map(([, label]) => {
    const row = element('tr');
    const name = element('th', '', label);
    name.scope = 'row';
    const count = element('td', '', '0');
    const barCell = element('td');
    const bar = element('div', 'bar');
    bar.setAttribute('aria-hidden', 'true');
    const fill = element('span');
    bar.append(fill);
    barCell.append(bar);
    row.append(name, count, barCell);
    body.append(row);
    return { count, fill };
  });

  return {
    render(lags) {
      const counts = BUCKETS.map(() => 0);
      for (const lag of lags) counts[BUCKETS.findIndex(([bound]) => Math.max(0, lag) < bound)] += 1;
      const most = Math.max(1, ...counts);
      rows.forEach((row, index) => {
        setText(row.count, String(counts[index]));
        row.fill.style.width = `${Math.round((counts[index] / most) * 100)}%`;
      });
      const sorted = [...lags].sort((a, b) => a - b);
      setText(
        summary,
        lags.length === 0
          ? 'No scheduled job has started yet.'
          : `${lags.length} recent scheduled jobs: p50 ${duration(percentile(sorted, 0.5) / 1000)}, p99 ${duration(percentile(sorted, 0.99) / 1000)}.`,
      );
    },
  };
}
