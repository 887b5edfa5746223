// Recent results, newest first, keyed by job id so an expanded error stays open across refreshes.

import { duration, element, relativeTime, setText, timeInZone } from './format.js';

const FINISHED = new Set(['success', 'error', 'missed_start_deadline', 'cancelled', 'abandoned']);
const SHOWN = 30;

/** Finished jobs of every task, newest first. */
export function recentResults(jobs) {
  return jobs
    .filter((job) => FINISHED.has(job.status) && job.finished_at)
    .sort((a, b) => Date.parse(b.finished_at) - Date.parse(a.finished_at))
    .slice(0, SHOWN);
}

/** @param {HTMLUListElement} list @param {(job) => string} zoneOf the time zone to show a job's times in */
export function createResultsView(list, zoneOf) {
  const items = new Map();

  function createItem(job) {
    const item = element('li');
    const badgeCell = element('span');
    const badge = element('span', 'badge');
    badgeCell.append(badge);
    const id = element('span', 'mono id', job.id);
    const origin = element('span', '', job.schedule_id ? `${job.task} · ${job.schedule_id}` : job.task);
    const when = element('span');
    const took = element('span');
    item.append(badgeCell, id, origin, when, took);
    const view = { item, badge, when, took, details: null };
    const error = job.result?.error;
    if (error) {
      const details = element('details');
      const summary = element('summary', '', `${error.type}: ${error.message}`);
      const stack = element('pre', '', error.stack ?? `${error.type}: ${error.message}`);
      details.append(summary, stack);
      item.append(details);
      view.details = details;
    }
    return view;
  }

  return {
    render(results, now) {
      const seen = new Set();
      let previous = null;
      for (const job of results) {
        seen.add(job.id);
        let view = items.get(job.id);
        if (!view) {
          view = createItem(job);
          items.set(job.id, view);
        }
        setText(view.badge, job.status.replaceAll('_', ' '));
        view.badge.dataset.kind = job.status;
        const finished = Date.parse(job.finished_at);
        setText(view.when, `finished ${relativeTime(finished, now)}`);
        view.when.title = timeInZone(finished, zoneOf(job));
        const seconds = job.result?.duration_seconds;
        setText(
          view.took,
          seconds === null || seconds === undefined ? 'did not run' : `took ${duration(seconds)}`,
        );
        const expectedPlace = previous ? previous.nextSibling : list.firstChild;
        if (expectedPlace !== view.item) list.insertBefore(view.item, expectedPlace);
        previous = view.item;
      }
      for (const [id, view] of items) {
        if (!seen.has(id)) {
          view.item.remove();
          items.delete(id);
        }
      }
    },
  };
}
