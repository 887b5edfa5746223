// Upcoming fires across schedules: a track per schedule over the next hour (visual only), and an
// ordered list of the next fires for everyone, screen readers included.

import type { WireSchedule } from '../../core/admin-contract';
import { relativeTime } from '../../core/format/durations';
import { clockTime } from '../../core/format/time-in-zone';
import { element } from './dom';

export const WINDOW_MS = 60 * 60 * 1000;
const AXIS_STEP_MS = 10 * 60 * 1000;
const LISTED = 10;
const TRACKS = 8;

/** Fire times (epoch ms) of an active schedule, from `preview_schedule`. */
export interface UpcomingFires {
  schedule: WireSchedule;
  fires: number[];
}

/**
 * @param chart the visual timeline (aria-hidden)
 * @param list the next fires as text
 */
export function createTimelineView(chart: HTMLElement, list: HTMLOListElement) {
  return {
    render(upcoming: readonly UpcomingFires[], now: number): void {
      const inWindow = upcoming
        .map(({ schedule, fires }) => ({
          schedule,
          fires: fires.filter((fire) => fire >= now && fire <= now + WINDOW_MS),
        }))
        .filter(({ fires }) => fires.length > 0)
        .slice(0, TRACKS);
      const tracks = inWindow.flatMap(({ schedule, fires }) => {
        const label = element('div', 'timeline-label mono', schedule.id);
        const track = element('div', 'timeline-track');
        // One marker per 0.25 % of the width at most: a schedule firing every second draws a band.
        const positions = new Set(fires.map((fire) => Math.round(((fire - now) / WINDOW_MS) * 400) / 4));
        for (const position of positions) {
          const marker = element('span', 'timeline-marker');
          marker.style.left = `${position}%`;
          track.append(marker);
        }
        return [label, track];
      });
      const axis = element('div', 'timeline-axis');
      for (let offset = 0; offset <= WINDOW_MS; offset += AXIS_STEP_MS) {
        const tick = element('span', 'timeline-tick', offset === 0 ? 'now' : `+${offset / 60000} min`);
        tick.style.left = `${(offset / WINDOW_MS) * 100}%`;
        axis.append(tick);
      }
      const empty = inWindow.length === 0 ? [element('p', 'note', 'No fires in the next 60 minutes.')] : [];
      chart.replaceChildren(...tracks, element('div'), axis, ...empty);

      const next = upcoming
        .flatMap(({ schedule, fires }) =>
          fires.filter((fire) => fire >= now).map((fire) => ({ schedule, fire })),
        )
        .sort((a, b) => a.fire - b.fire)
        .slice(0, LISTED);
      const entries = next.map(({ schedule, fire }) =>
        element(
          'li',
          '',
          `${schedule.id}: ${clockTime(fire, schedule.timezone)} ${schedule.timezone} (${relativeTime(fire, now)})`,
        ),
      );
      if (entries.length === 0) entries.push(element('li', 'note', 'No upcoming fires.'));
      const texts = entries.map((entry) => entry.textContent).join('\n');
      if (list.dataset.texts !== texts) {
        list.replaceChildren(...entries);
        list.dataset.texts = texts;
      }
    },
  };
}
