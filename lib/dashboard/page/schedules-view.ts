// The schedules table. Rows are keyed by schedule id and updated in place, so a focused button
// keeps its focus (and its place in the tab order) while the table refreshes every two seconds.

import type { WireSchedule } from '../../core/admin-contract';
import { relativeTime } from '../../core/format/durations';
import { nextFireShown, scheduleState } from '../../core/format/schedule-state';
import { timeInZone } from '../../core/format/time-in-zone';
import { describeTrigger } from '../../core/format/triggers';
import { element, keyedChildren, setText } from './dom';

export interface ScheduleActions {
  onToggle(id: string, paused: boolean, button: HTMLButtonElement): void;
  onRunNow(id: string, button: HTMLButtonElement): void;
}

interface ShownAt {
  previews: ReadonlyMap<string, number[]>;
  now: number;
}

export function createSchedulesView(body: HTMLTableSectionElement, actions: ScheduleActions) {
  function createRow(schedule: WireSchedule) {
    const { id } = schedule;
    const node = element('tr');
    node.dataset.id = id;
    const name = element('th', 'id', id);
    name.scope = 'row';
    // What the schedule is for, and its metadata: shown only when it has them.
    const about = element('span', 'about');
    name.append(about);
    const task = element('td');
    const trigger = element('td', 'mono');
    const next = element('td');
    const when = element('span', 'when');
    const relative = element('span', 'relative');
    next.append(when, relative);
    const stateCell = element('td');
    const state = element('span', 'badge');
    const runs = element('span', 'relative');
    stateCell.append(state, runs);
    const actionCell = element('td', 'actions');
    const toggle = element('button');
    toggle.type = 'button';
    toggle.addEventListener('click', () => actions.onToggle(id, node.dataset.paused === 'true', toggle));
    const runNow = element('button', 'primary', 'Run now');
    runNow.type = 'button';
    runNow.setAttribute('aria-label', `Run ${id} now`);
    runNow.addEventListener('click', () => actions.onRunNow(id, runNow));
    actionCell.append(toggle, runNow);
    node.append(name, task, trigger, next, stateCell, actionCell);
    return { node, about, task, trigger, when, relative, state, runs, toggle };
  }

  /**
   * Shows `schedules` (in the admin API's order, by id); `previews` maps schedule ids to upcoming fire
   * times (epoch ms); `now` is the server's clock.
   */
  const render = keyedChildren(
    body,
    (schedule: WireSchedule) => schedule.id,
    createRow,
    (view, schedule, { previews, now }: ShownAt) => {
      // The preview's first fire from now may already be dispatched, and so be earlier than next_fire_time.
      const next = nextFireShown(
        schedule,
        previews.get(schedule.id)?.find((fire) => fire >= now),
      );
      const state = scheduleState(schedule, next);
      view.node.dataset.paused = String(schedule.paused);
      setText(view.about, aboutText(schedule));
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
      setText(view.runs, runsText(schedule));
      setText(view.toggle, schedule.paused ? 'Resume' : 'Pause');
      view.toggle.setAttribute('aria-label', `${schedule.paused ? 'Resume' : 'Pause'} ${schedule.id}`);
    },
  );

  return { render };
}

/** What a schedule is for, under its id: its description, `critical` when it is, and its metadata. */
export function aboutText(schedule: Pick<WireSchedule, 'description' | 'priority' | 'metadata'>): string {
  const metadata = Object.entries(schedule.metadata)
    .map(([key, value]) => `${key}=${value}`)
    .sort();
  return [schedule.description ?? '', schedule.priority === 'critical' ? 'critical' : '', metadata.join(', ')]
    .filter(Boolean)
    .join(' · ');
}

/** `3 of 5 runs`, `12 runs`; empty before the first fire of a schedule without a limit. */
export function runsText(schedule: Pick<WireSchedule, 'runs' | 'max_runs'>): string {
  if (schedule.max_runs !== null) return `${schedule.runs} of ${schedule.max_runs} runs`;
  return schedule.runs === 0 ? '' : `${schedule.runs} run${schedule.runs === 1 ? '' : 's'}`;
}
