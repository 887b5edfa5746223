// Recent results, newest first, keyed by job id so an expanded error stays open across refreshes.

import type { WireJob } from '../../core/admin-contract';
import { compactDuration, relativeTime } from '../../core/format/durations';
import { timeInZone } from '../../core/format/time-in-zone';
import { isFinalStatus } from '../../core/model/job';
import { element, keyedChildren, setText } from './dom';

const SHOWN = 30;

/** A job that has finished: it has a `finished_at`. */
type FinishedJob = WireJob & { finished_at: string };

/** Finished jobs of every task, newest first; with `failuresOnly`, those that did not succeed. */
export function recentResults(jobs: readonly WireJob[], failuresOnly = false): FinishedJob[] {
  return jobs
    .filter((job): job is FinishedJob => isFinalStatus(job.status) && job.finished_at !== null)
    .filter((job) => !failuresOnly || job.status !== 'success')
    .sort((a, b) => Date.parse(b.finished_at) - Date.parse(a.finished_at))
    .slice(0, SHOWN);
}

/** A retried job's earlier runs, oldest first: `attempt 1: error (Boom: disk full) at <finished>`. */
export function historyLines(job: WireJob): string[] {
  return (job.history ?? []).map((run) => {
    const error = run.error ? ` (${run.error.type}: ${run.error.message})` : '';
    return `attempt ${run.attempt}: ${run.outcome.replaceAll('_', ' ')}${error} at ${run.finished_at}`;
  });
}

/**
 * @param list the results
 * @param zoneOf the time zone to show a job's times in
 */
export function createResultsView(list: HTMLUListElement, zoneOf: (job: WireJob) => string) {
  function createItem(job: FinishedJob) {
    const node = element('li');
    const badgeCell = element('span');
    const badge = element('span', 'badge');
    badgeCell.append(badge);
    const id = element('span', 'mono id', job.id);
    const metadata = Object.entries(job.metadata)
      .map(([key, value]) => `${key}=${value}`)
      .sort();
    const source = [job.task, job.schedule_id ?? '', metadata.join(', ')].filter(Boolean).join(' · ');
    const origin = element('span', '', source);
    const when = element('span');
    const took = element('span');
    node.append(badgeCell, id, origin, when, took);
    const error = job.result?.error;
    if (error) {
      const details = element('details');
      const summary = element('summary', '', `${error.type}: ${error.message}`);
      const stack = element('pre', '', error.stack ?? `${error.type}: ${error.message}`);
      details.append(summary, stack);
      node.append(details);
    }
    const earlier = historyLines(job);
    if (earlier.length > 0) {
      const details = element('details', 'history');
      details.append(element('summary', '', `retried: ${earlier.length} earlier run(s)`));
      details.append(element('pre', '', earlier.join('\n')));
      node.append(details);
    }
    return { node, badge, when, took };
  }

  /** Shows `results` (newest first) with times relative to `now`, the server's clock. */
  const render = keyedChildren(
    list,
    // A retried job that finished again is a new entry (its error and history changed).
    (job: FinishedJob) => `${job.id} ${job.attempt}`,
    createItem,
    (view, job, now: number) => {
      setText(view.badge, job.status.replaceAll('_', ' '));
      view.badge.dataset.kind = job.status;
      const finished = Date.parse(job.finished_at);
      setText(view.when, `finished ${relativeTime(finished, now)}`);
      view.when.title = timeInZone(finished, zoneOf(job));
      const seconds = job.result?.duration_seconds;
      setText(
        view.took,
        seconds === null || seconds === undefined ? 'did not run' : `took ${compactDuration(seconds)}`,
      );
    },
  );

  return { render };
}
