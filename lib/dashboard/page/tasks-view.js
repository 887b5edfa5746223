// Running jobs per task against its maxRunningJobs limit (list_tasks), rows keyed by task id.

import { element, setText } from './format.js';

export function createTasksView(body) {
  const rows = new Map();

  function createRow(id) {
    const row = element('tr');
    const name = element('th', 'id', id);
    name.scope = 'row';
    const count = element('td');
    const barCell = element('td');
    const bar = element('div', 'bar');
    bar.setAttribute('aria-hidden', 'true');
    const fill = element('span');
    bar.append(fill);
    barCell.append(bar);
    row.append(name, count, barCell);
    return { row, count, bar, fill };
  }

  return {
    render(tasks) {
      const seen = new Set();
      for (const task of tasks) {
        seen.add(task.id);
        let view = rows.get(task.id);
        if (!view) {
          view = createRow(task.id);
          rows.set(task.id, view);
          body.append(view.row);
        }
        const limit = task.max_running_jobs;
        setText(view.count, limit === null ? `${task.running} (no limit)` : `${task.running} / ${limit}`);
        const share =
          limit === null ? Math.min(1, task.running / 10) : limit === 0 ? 1 : task.running / limit;
        view.fill.style.width = `${Math.round(Math.min(1, share) * 100)}%`;
        view.bar.dataset.full = String(limit !== null && task.running >= limit);
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
