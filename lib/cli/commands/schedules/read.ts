import { Option } from '@commander-js/extra-typings';
import { callAdmin } from '../../admin/client';
import { adminCommand } from '../../admin-command';
import { renderFireTimes, renderScheduleDetails, renderScheduleTable } from '../../format/schedules';
import { definedFields, numberField } from '../../option-values';
import { metadataEntry } from '../override-options';

/** Page size of `--all`: the admin API's largest. */
const ALL_PAGE_SIZE = 500;

export const listSchedulesCommand = adminCommand({
  name: 'list',
  summary: 'list schedules with their next fire times',
  description: `One page of schedules, ordered by id (admin API list_schedules), next fire times in each
schedule's own time zone.`,
  examples: [
    'sundial schedules list',
    'sundial schedules list --task send-report --paused',
    'sundial schedules list --tag monitoring --all --json',
    'sundial schedules list --metadata tenant=acme --wide',
  ],
  declare: (command) =>
    command
      .option('--task <task>', "only this task's schedules")
      .option('--tag <tag>', 'only schedules with this tag')
      .addOption(new Option('--paused', 'only paused schedules').conflicts('active'))
      .option('--active', 'only schedules that are not paused')
      .option(
        '--metadata <key=value>',
        'only schedules with this metadata entry (repeat: all must match)',
        metadataEntry,
      )
      .option('--wide', 'also show each schedule’s description and metadata')
      .option('--limit <n>', 'page size, 1-500 (default: 50)', numberField)
      .addOption(
        new Option('--cursor <c>', "the next page, from the previous page's cursor").conflicts('all'),
      )
      .option('--all', 'every page'),
  async execute({ options, io, admin, print }) {
    const request = definedFields({
      task: options.task,
      tag: options.tag,
      paused: options.paused ? true : options.active ? false : undefined,
      metadata: options.metadata,
      limit: options.limit ?? (options.all ? ALL_PAGE_SIZE : undefined),
      cursor: options.cursor,
    });
    const client = await admin();
    const flags = {
      limit: '--limit',
      cursor: '--cursor',
      task: '--task',
      tag: '--tag',
      metadata: '--metadata',
    };
    let page = await callAdmin(client, 'list_schedules', request, flags);
    const schedules = [...page.schedules];
    while (options.all && page.cursor !== null) {
      page = await callAdmin(client, 'list_schedules', { ...request, cursor: page.cursor }, flags);
      schedules.push(...page.schedules);
    }
    const result = { schedules, cursor: page.cursor };
    print(result, () => {
      const more =
        page.cursor === null ? '' : `\n\nMore schedules: sundial schedules list --cursor ${page.cursor}`;
      return `${renderScheduleTable(schedules, io.clock, { wide: options.wide === true })}${more}`;
    });
    return undefined;
  },
});

export const getScheduleCommand = adminCommand({
  name: 'get',
  summary: 'show one schedule',
  description: `Every field of a schedule (admin API get_schedule): its trigger, next and last fire time in its
time zone and in UTC, payload and policies.`,
  examples: ['sundial schedules get nightly', 'sundial schedules get nightly --json'],
  declare: (command) => command.argument('<id>', 'the schedule id'),
  async execute({ args: [id], io, admin, print }) {
    const result = await callAdmin(await admin(), 'get_schedule', { id });
    print(result, () => renderScheduleDetails(result.schedule, io.clock));
    return undefined;
  },
});

export const previewScheduleCommand = adminCommand({
  name: 'preview',
  summary: 'show the next fire times of a stored schedule',
  description: `The next fire times of a stored schedule's trigger (admin API preview_schedule), in its time zone
and in UTC. To try a trigger before storing it, use 'sundial preview'.`,
  examples: [
    'sundial schedules preview nightly',
    'sundial schedules preview nightly --count 3 --from 2026-03-28T00:00:00Z',
  ],
  declare: (command) =>
    command
      .argument('<id>', 'the schedule id')
      .option('--count <n>', 'how many, 1-1000 (default: 10)', numberField)
      .option('--from <ISO>', 'first instant to consider, with Z or an offset (default: now)'),
  async execute({ args: [id], options, io, admin, print }) {
    const request = definedFields({
      id,
      from: options.from,
      count: options.count,
    });
    const result = await callAdmin(await admin(), 'preview_schedule', request, {
      from: '--from',
      count: '--count',
    });
    print(result, () => renderFireTimes(result.fire_times, result.timezone, io.clock));
    return undefined;
  },
});
