// The dashboard: polls the admin API every 2 s (not while the tab is hidden or updates are paused),
// renders each panel, and runs the pause / resume / run-now actions.

import type { WireSchedule } from '../../core/admin-contract';
import { timeInZone } from '../../core/format/time-in-zone';
import type { DashboardAction } from '../protocol';
import { AdminError, admin, serverNow } from './api';
import { byId } from './dom';
import { createLagView, fireLags } from './lag-view';
import { createResultsView, recentResults } from './results-view';
import { createSchedulesView } from './schedules-view';
import { createTasksView } from './tasks-view';
import { createTimelineView, type UpcomingFires, WINDOW_MS } from './timeline-view';

const POLL_MS = 2000;
const PREVIEW_EVERY_MS = 10000;
const PREVIEWED_SCHEDULES = 12;
const JOBS_PER_TASK = 25;
/** Enough fire times to fill the timeline's hour for a schedule firing every few seconds. */
const PREVIEW_COUNT = 1000;
const SCHEDULES_SHOWN = 500;

const connection = byId('connection');
const announcer = byId('announcer');
const actionStatus = byId('action-status');
const alertBox = byId('alert');
const pollingToggle = byId<HTMLButtonElement>('polling-toggle');
const failuresOnly = byId<HTMLInputElement>('results-failures-only');

const state = {
  schedules: [] as WireSchedule[],
  live: true,
  timer: undefined as ReturnType<typeof setTimeout> | undefined,
  running: null as Promise<void> | null,
  again: false,
  previews: [] as UpcomingFires[],
  previewedAt: 0,
  previewKey: '',
  seenResults: null as Set<string> | null,
};

const schedulesView = createSchedulesView(byId<HTMLTableSectionElement>('schedule-rows'), {
  onToggle: toggleSchedule,
  onRunNow: runNow,
});
const tasksView = createTasksView(byId<HTMLTableSectionElement>('task-rows'), { onToggle: toggleTask });
const timelineView = createTimelineView(byId('timeline'), byId<HTMLOListElement>('upcoming-list'));
const lagView = createLagView(byId<HTMLTableSectionElement>('lag-rows'), byId('lag-summary'));
const resultsView = createResultsView(byId<HTMLUListElement>('result-list'), (job) =>
  zoneOfSchedule(job.schedule_id),
);

function zoneOfSchedule(id: string | null): string {
  return state.schedules.find((schedule) => schedule.id === id)?.timezone ?? 'UTC';
}

/** Live updates (new results), read out politely. */
function announce(text: string): void {
  announcer.textContent = text;
}

/** The outcome of the user's own action, in a region of its own so updates do not talk over it. */
function announceAction(text: string): void {
  actionStatus.textContent = text;
}

function showAlert(text: string): void {
  alertBox.textContent = text;
  alertBox.hidden = text === '';
}

/** Refreshes everything; a call while one runs makes that one run once more when it ends. */
function refresh(): Promise<void> {
  if (state.running) {
    state.again = true;
    return state.running;
  }
  state.running = load()
    .catch((error: unknown) => {
      connection.dataset.state = 'error';
      connection.textContent = `Cannot load: ${error instanceof Error ? error.message : String(error)}`;
    })
    .finally(() => {
      state.running = null;
      if (state.again) {
        state.again = false;
        void refresh();
      } else {
        scheduleNextPoll();
      }
    });
  return state.running;
}

async function load(): Promise<void> {
  const [page, { tasks }] = await Promise.all([
    admin('list_schedules', { limit: SCHEDULES_SHOWN }),
    admin('list_tasks', {}),
  ]);
  const jobPages = await Promise.all(
    tasks.map((task) => admin('list_jobs', { task: task.id, limit: JOBS_PER_TASK })),
  );
  const jobs = jobPages.flatMap((jobPage) => jobPage.jobs);
  state.schedules = page.schedules;
  await loadPreviews(page.schedules);
  const now = serverNow();
  schedulesView.render(page.schedules, {
    previews: new Map(state.previews.map(({ schedule, fires }) => [schedule.id, fires])),
    now,
  });
  byId('schedules-empty').hidden = page.schedules.length > 0;
  const more = byId('schedules-more');
  more.hidden = page.cursor === null;
  more.textContent =
    page.cursor === null ? '' : `Showing the first ${SCHEDULES_SHOWN} schedules; use the CLI for the rest.`;
  tasksView.render(tasks);
  timelineView.render(state.previews, now);
  lagView.render(fireLags(jobs));
  const results = recentResults(jobs, failuresOnly.checked);
  resultsView.render(results, now);
  byId('results-empty').hidden = results.length > 0;
  announceNewResults(results.map((job) => ({ id: job.id, failed: job.status !== 'success' })));
  connection.dataset.state = 'ok';
  connection.textContent = `Live · updated ${timeInZone(now, Intl.DateTimeFormat().resolvedOptions().timeZone)}`;
}

/** Fire times of the active schedules over the timeline's window, re-read every 10 s or when schedules change. */
async function loadPreviews(schedules: readonly WireSchedule[]): Promise<void> {
  const active = schedules.filter((schedule) => !schedule.paused && schedule.next_fire_time !== null);
  const shown = active.slice(0, PREVIEWED_SCHEDULES);
  const key = shown.map((schedule) => `${schedule.id}:${schedule.version}`).join(',');
  const now = serverNow();
  if (key === state.previewKey && now - state.previewedAt < PREVIEW_EVERY_MS) return;
  const from = new Date(now).toISOString();
  const previews = await Promise.all(
    shown.map((schedule) =>
      admin('preview_schedule', { id: schedule.id, from, count: PREVIEW_COUNT })
        .then((preview) => ({ schedule, fires: preview.fire_times.map((fire) => Date.parse(fire.utc)) }))
        .catch(() => ({ schedule, fires: [] })),
    ),
  );
  state.previews = previews.map(({ schedule, fires }) => ({
    schedule,
    fires: fires.filter((fire) => fire <= now + WINDOW_MS * 2),
  }));
  state.previewKey = key;
  state.previewedAt = now;
}

function announceNewResults(results: ReadonlyArray<{ id: string; failed: boolean }>): void {
  const seen = state.seenResults;
  if (seen !== null) {
    const fresh = results.filter((job) => !seen.has(job.id));
    const failed = fresh.filter((job) => job.failed);
    if (failed.length > 0)
      announce(
        `${failed.length} new failed job${failed.length === 1 ? '' : 's'}: ${failed.map((job) => job.id).join(', ')}`,
      );
    else if (fresh.length > 0) announce(`${fresh.length} new result${fresh.length === 1 ? '' : 's'}`);
  }
  state.seenResults = new Set(results.map((job) => job.id));
}

function scheduleNextPoll(): void {
  clearTimeout(state.timer);
  if (state.live && !document.hidden) state.timer = setTimeout(refresh, POLL_MS);
}

/** Runs one action from a button; the button stays focusable (aria-disabled) while it runs. */
async function act(
  button: HTMLButtonElement,
  action: DashboardAction,
  send: () => Promise<unknown>,
  done: string,
): Promise<void> {
  if (button.getAttribute('aria-disabled') === 'true') return;
  button.setAttribute('aria-disabled', 'true');
  showAlert('');
  try {
    await send();
    announceAction(done);
    await refresh();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    showAlert(
      error instanceof AdminError
        ? `Could not ${action.replaceAll('_', ' ')}: ${message}`
        : `Could not reach Sundial: ${message}`,
    );
  } finally {
    button.removeAttribute('aria-disabled');
  }
}

function toggleSchedule(id: string, paused: boolean, button: HTMLButtonElement): Promise<void> {
  const action = paused ? 'resume_schedule' : 'pause_schedule';
  return act(button, action, () => admin(action, { id }), `${paused ? 'Resumed' : 'Paused'} ${id}`);
}

function toggleTask(id: string, paused: boolean, button: HTMLButtonElement): Promise<void> {
  const action = paused ? 'resume_task' : 'pause_task';
  return act(
    button,
    action,
    () => admin(action, { task: id }),
    `${paused ? 'Resumed' : 'Paused'} task ${id}`,
  );
}

function runNow(id: string, button: HTMLButtonElement): Promise<void> {
  return act(button, 'run_schedule_now', () => admin('run_schedule_now', { id }), `Queued a run of ${id}`);
}

failuresOnly.addEventListener('change', () => void refresh());

pollingToggle.addEventListener('click', () => {
  state.live = !state.live;
  pollingToggle.setAttribute('aria-pressed', String(!state.live));
  pollingToggle.textContent = state.live ? 'Pause live updates' : 'Resume live updates';
  announceAction(state.live ? 'Live updates resumed' : 'Live updates paused');
  if (state.live) void refresh();
  else clearTimeout(state.timer);
});

document.addEventListener('visibilitychange', () => {
  if (document.hidden) clearTimeout(state.timer);
  else if (state.live) void refresh();
});

void refresh();
