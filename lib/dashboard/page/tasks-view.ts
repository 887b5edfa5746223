// Running jobs per task against its maxRunningJobs limit (list_tasks), rows keyed by task id.

import type { WireTask } from '../../core/admin-contract';
import { barCell, element, keyedChildren, setText } from './dom';

export function createTasksView(body: HTMLTableSectionElement) {
  const show = keyedChildren(
    body,
    (task: WireTask) => task.id,
    (task) => {
      const node = element('tr');
      const name = element('th', 'id', task.id);
      name.scope = 'row';
      const count = element('td');
      const { cell, bar, fill } = barCell();
      node.append(name, count, cell);
      return { node, count, bar, fill };
    },
    (view, task) => {
      const limit = task.max_running_jobs;
      setText(view.count, limit === null ? `${task.running} (no limit)` : `${task.running} / ${limit}`);
      const share = limit === null ? Math.min(1, task.running / 10) : limit === 0 ? 1 : task.running / limit;
      view.fill.style.width = `${Math.round(Math.min(1, share) * 100)}%`;
      view.bar.dataset.full = String(limit !== null && task.running >= limit);
    },
  );
  return { render: (tasks: readonly WireTask[]) => show(tasks, undefined) };
}
