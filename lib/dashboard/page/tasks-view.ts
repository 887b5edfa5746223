// Running jobs per task against its maxRunningJobs limit, its rate limit, its waiting jobs and whether it is paused
// (list_tasks), rows keyed by task id.

import type { WireTask } from '../../core/admin-contract';
import { barCell, element, keyedChildren, setText } from './dom';

export interface TaskActions {
  onToggle(id: string, paused: boolean, button: HTMLButtonElement): void;
}

export function createTasksView(body: HTMLTableSectionElement, actions: TaskActions) {
  const show = keyedChildren(
    body,
    (task: WireTask) => task.id,
    (task) => {
      const node = element('tr');
      const name = element('th', 'id', task.id);
      name.scope = 'row';
      const count = element('td');
      const { cell, bar, fill } = barCell();
      const rate = element('td');
      const waiting = element('td');
      const actionCell = element('td', 'actions');
      const toggle = element('button');
      toggle.type = 'button';
      toggle.addEventListener('click', () =>
        actions.onToggle(task.id, node.dataset.paused === 'true', toggle),
      );
      actionCell.append(toggle);
      node.append(name, count, cell, rate, waiting, actionCell);
      return { node, count, bar, fill, rate, waiting, toggle };
    },
    (view, task) => {
      const limit = task.max_running_jobs;
      setText(view.count, limit === null ? `${task.running} (no limit)` : `${task.running} / ${limit}`);
      const share = limit === null ? Math.min(1, task.running / 10) : limit === 0 ? 1 : task.running / limit;
      view.fill.style.width = `${Math.round(Math.min(1, share) * 100)}%`;
      view.bar.dataset.full = String(limit !== null && task.running >= limit);
      const rate = task.rate_limit;
      setText(view.rate, rate === null ? 'none' : `${rate.max} per ${rate.per_seconds} s`);
      view.node.dataset.paused = String(task.paused);
      setText(view.waiting, task.paused ? `${task.waiting} (paused)` : String(task.waiting));
      setText(view.toggle, task.paused ? 'Resume' : 'Pause');
      view.toggle.setAttribute('aria-label', `${task.paused ? 'Resume' : 'Pause'} task ${task.id}`);
    },
  );
  return { render: (tasks: readonly WireTask[]) => show(tasks, undefined) };
}
