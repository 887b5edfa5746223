// The schedules table. Rows are keyed by schedule id and updated in place, so a focused button
// keeps its focus (and its place in the tab order) while the table refreshes every two seconds.

import { describeTrigger, element, relativeTime, setText, timeInZone } from './format.js';

/**
 * When a schedule fires next: `next_fire_time` is the next fire not yet dispatched, which the tick
 * sends up to 90 s ahead, so an earlier fire time from the preview (already dispatched) comes first.
 */
export function upcomingFire(schedule, previewFires, now) {
  const undispatched = schedule.next_fire_time === null ? null : Date.parse(schedule.next_fire_time);
  if (schedule.paused) return undispatched;
  const previewed = previewFires?.find((fire) => fire >= now);
  if (previewed === undefined) return undispatched;
  return undispatched === null ? previewed : Math.min(previewed, undispatched);
}

/** `paused`, `finished` (no more fire times) or `active`. */
export function scheduleState(schedule, next) {
  if (schedule.paused) return 'paused';
  return next === null ? 'finished' : 'active';
}

/**
 * @param {HTMLTableSectionElement} body
 * @param {{ onToggle(id: string, paused: boolean, button: HTMLButtonElement): void, onRunNow(id: string, button: HTMLButtonElement): void }} actions
 */
export function createSchedulesView(body, actions) {
  const rows = new Map();

  function createRow(id) {
    const row = element('tr');
    row.dataset.id = id;
    const name = element('th', 'id', id);
    name.scope = 'row';
    const task = element('td');
    const trigger = element('td', 'mono');
    const next = element('td');
    const when = element('span', 'when');
    const relative = element('span', 'relative');
    next.append(when, relative);
    const stateCell = element('td');
    const state = element('span', 'badge');
    stateCell.append(state);
    const actionCell = element('td', 'actions');
    const toggle = element('button');
    toggle.type = 'button';
    toggle.addEventListener('click', () => actions.onToggle(id, row.dataset.paused === 'true', toggle));
    const runNow = element('button', 'primary', 'Run now');
    runNow.type = 'button';
    runNow.setAttribute('aria-label', `Run ${id} now`);
    runNow.addEventListener('click', () => actions.onRunNow(id, runNow));
    actionCell.append(toggle, runNow);
    row.append(name, task, trigger, next, stateCell, actionCell);
    return { row, task, trigger, when, relative, state, toggle };
  }

  function update(view, schedule, previewFires, now) {
    const next = upcomingFire(schedule, previewFires, now);
    const state = scheduleState(schedule, next);
    view.row.dataset.paused = String(schedule.paused);
    setText(view.task, schedule.task);
    setText(view.trigger, describeTrigger(schedule.trigger));
    view.trigger.title = JSON.stringify(schedule.trigger);
    setText(view.when, next === null ? '—' : timeInZone(next, schedule.timezone));
    setText(
      view.relative,
      next === null
        ? 'no more fire times'
        : schedule.paused
          ? `paused; due ${relativeTime(next, now)}`
          : relativeTime(next, now),
    );
    setText(view.state, state);
    view.state.dataset.kind = state;
    setText(view.toggle, schedule.paused ? 'Resume' : 'Pause');
    view.toggle.setAttribute('aria-label', `${schedule.paused ? 'Resume' : 'Pause'} ${schedule.id}`);
  }

  return {
    /**
     * Shows `schedules` (in the admin API's order, by id); `previews` maps schedule ids to upcoming
     * fire times (epoch ms); `now` is the server's clock.
     */
    render(schedules, previews, now) {
      const seen = new Set();
      let previous = null;
      for (const schedule of schedules) {
        seen.add(schedule.id);
        let view = rows.get(schedule.id);
        if (!view) {
          view = createRow(schedule.id);
          rows.set(schedule.id, view);
        }
        update(view, schedule, previews.get(schedule.id), now);
        const expectedPlace = previous ? previous.nextSibling : body.firstChild;
        if (expectedPlace !== view.row) body.insertBefore(view.row, expectedPlace);
        previous = view.row;
      }
      for (const [id, view] of rows) {
        if (!seen.has(id)) {
          view.row.remove();
          rows.delete(id);
        }
      }
    },
  };
}
