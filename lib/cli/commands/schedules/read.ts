import { callAdmin } from '../../admin/client';
import { adminCommand } from '../../admin-command';
import { definedFields, flag, noPositionals, numberField, onePositional, text } from '../../args';
import { UsageError } from '../../command';
import { renderFireTimes, renderScheduleDetails, renderScheduleTable } from '../../format/schedules';

/** Page size of `--all`: the admin API's largest. */
const ALL_PAGE_SIZE = 500;

export const listSchedulesCommand = adminCommand({
  name: 'list',
  summary: 'list schedules with their next fire times',
  usage: `Usage: sundial schedules list [--task <task>] [--tag <tag>] [--paused | --active] [--limit <n>] [--cursor <c> | --all]

One page of schedules, ordered by id (admin API list_schedules), next fire times in each
schedule's own time zone.

Options:
  --task <task>      only this task's schedules
  --tag <tag>        only schedules with this tag
  --paused           only paused schedules
  --active           only schedules that are not paused
  --limit <n>        page size, 1-500 (default 50)
  --cursor <c>       the next page, from the previous page's cursor
  --all              every page`,
  examples: [
    'sundial schedules list',
    'sundial schedules list --task send-report --paused',
    'sundial schedules list --tag monitoring --all --json',
  ],
  options: {
    task: { type: 'string' },
    tag: { type: 'string' },
    paused: { type: 'boolean' },
    active: { type: 'boolean' },
    limit: { type: 'string' },
    cursor: { type: 'string' },
    all: { type: 'boolean' },
  },
  async execute({ values, positionals, io, admin, print }) {
    noPositionals(positionals);
    if (flag(values, 'paused') && flag(values, 'active'))
      throw new UsageError('give --paused or --active, not both');
    if (flag(values, 'all') && text(values, 'cursor') !== undefined)
      throw new UsageError('give --cursor or --all, not both');
    const limit = text(values, 'limit');
    const request = definedFields({
      task: text(values, 'task'),
      tag: text(values, 'tag'),
      paused: flag(values, 'paused') ? true : flag(values, 'active') ? false : undefined,
      limit: limit === undefined ? (flag(values, 'all') ? ALL_PAGE_SIZE : undefined) : numberField(limit),
      cursor: text(values, 'cursor'),
    });
    const client = await admin();
    const flags = { limit: '--limit', cursor: '--cursor', task: '--task', tag: '--tag' };
    let page = await callAdmin(client, 'list_schedules', request, flags);
    const schedules = [...page.schedules];
    while (flag(values, 'all') && page.cursor !== null) {
      page = await callAdmin(client, 'list_schedules', { ...request, cursor: page.cursor }, flags);
      schedules.push(...page.schedules);
    }
    const result = { schedules, cursor: page.cursor };
    print(result, () => {
      const more =
        page.cursor === null ? '' : `\n\nMore schedules: sundial schedules list --cursor ${page.cursor}`;
      return `${renderScheduleTable(schedules, io.clock)}${more}`;
    });
    return undefined;
  },
});

export const getScheduleCommand = adminCommand({
  name: 'get',
  summary: 'show one schedule',
  usage: `Usage: sundial schedules get <id>

Every field of a schedule (admin API get_schedule): its trigger, next and last fire time in its
time zone and in UTC, payload and policies.

Options:`,
  examples: ['sundial schedules get nightly', 'sundial schedules get nightly --json'],
  options: {},
  async execute({ positionals, io, admin, print }) {
    const id = onePositional(positionals, 'schedule id', 'sundial schedules get <id>');
    const result = await callAdmin(await admin(), 'get_schedule', { id });
    print(result, () => renderScheduleDetails(result.schedule, io.clock));
    return undefined;
  },
});

export const previewScheduleCommand = adminCommand({
  name: 'preview',
  summary: 'show the next fire times of a stored schedule',
  usage: `Usage: sundial schedules preview <id> [--count <n>] [--from <ISO>]

The next fire times of a stored schedule's trigger (admin API preview_schedule), in its time zone
and in UTC. To try a trigger before storing it, use 'sundial preview'.

Options:
  --count <n>        how many, 1-1000 (default 10)
  --from <ISO>       first instant to consider, with Z or an offset (default now)`,
  examples: [
    'sundial schedules preview nightly',
    'sundial schedules preview nightly --count 3 --from 2026-03-28T00:00:00Z',
  ],
  options: { count: { type: 'string' }, from: { type: 'string' } },
  async execute({ values, positionals, io, admin, print }) {
    const id = onePositional(positionals, 'schedule id', 'sundial schedules preview <id>');
    const count = text(values, 'count');
    const request = definedFields({
      id,
      from: text(values, 'from'),
      count: count === undefined ? undefined : numberField(count),
    });
    const result = await callAdmin(await admin(), 'preview_schedule', request, {
      from: '--from',
      count: '--count',
    });
    print(result, () => renderFireTimes(result.fire_times, result.timezone, io.clock));
    return undefined;
  },
});
