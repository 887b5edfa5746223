import { adminCommand } from '../../admin-command';
import { EXIT_OK, EXIT_OPERATION_FAILED } from '../../command';
import { ProgressBar } from '../../format/progress';
import { renderTable } from '../../format/table';
import { collect, policyValue, wholeNumberFrom } from '../../option-values';
import { importEventBridgeSchedules } from './eventbridge/import-eventbridge';
import { taskChoice } from './eventbridge/options';
import { anyNotAdded, countOutcomes, renderEventBridgeReport } from './eventbridge/report';
import { readImportFile, readStructuredFile } from './read-file';
import { type ItemOutcome, JOBS_PER_CALL, submitJobs, submitSchedules } from './submit';

const DEFAULT_CONCURRENCY = 8;
const MAX_CONCURRENCY = 64;
const FILE_EXAMPLE = `
A file to import:
  schedules:
    - id: nightly
      task: send-report
      trigger: { type: cron, expression: '0 9 * * MON-FRI', timezone: Europe/Berlin }
      payload: { team: ops, recipients: [ops@example.com] }
      tags: [reports]
  jobs:
    - { job_id: backfill-1, task: send-report, payload: { team: ops, recipients: [ops@example.com] } }`;

export const importCommand = adminCommand({
  name: 'import',
  summary: 'add many schedules and jobs from a JSON or YAML file',
  usage: '<file.json|file.yaml> [options]',
  description: `Adds every schedule (add_schedule, a few at a time) and job (add_jobs, ${JOBS_PER_CALL} per call) of the
file, shows a progress bar on a terminal, then one line per item. Each item succeeds or fails on its
own; the exit code is 1 when any failed. The file holds the admin API's fields (snake_case), as in
the example below. With --from-eventbridge it holds EventBridge Scheduler schedules instead (the JSON
of aws scheduler get-schedule): each becomes a schedule with an eventbridge trigger, run by --task,
and the report says what was not carried over (docs/cli.md).`,
  examples: [
    'sundial import schedules.yaml',
    'sundial import backfill.json --conflict do_nothing --json',
    'sundial import --from-eventbridge schedules.json --task send-report --dry-run',
  ],
  declare: (command) =>
    command
      .addHelpText('after', FILE_EXAMPLE)
      .argument('<file>', 'a .json, .yaml or .yml file of schedules and/or jobs')
      .option(
        '--concurrency <n>',
        `schedules added at once, 1-${MAX_CONCURRENCY}`,
        wholeNumberFrom(1, MAX_CONCURRENCY),
        DEFAULT_CONCURRENCY,
      )
      .option(
        '--conflict <policy>',
        'for items without conflict_policy: exception (default), replace or do_nothing',
        policyValue,
      )
      .option(
        '--from-eventbridge',
        'the file is the JSON of `aws scheduler get-schedule` (one, or a list) or `list-schedules`',
      )
      .option('--task <task>', 'with --from-eventbridge: the task that runs the schedules')
      .option(
        '--task-for <arn=task>',
        'with --from-eventbridge: the task for one target ARN (repeat)',
        collect,
      )
      .option(
        '--dry-run',
        'with --from-eventbridge: convert, and have the admin API check each schedule as it would add it; add nothing',
      ),
  async execute({ args: [path], options, io, admin, print }) {
    const choice = taskChoice(options);
    if (choice !== undefined) {
      const content = await readStructuredFile(path, io.cwd ?? process.cwd());
      const dryRun = options.dryRun === true;
      const outcomes = await importEventBridgeSchedules(content, path, {
        choice,
        dryRun,
        concurrency: options.concurrency,
        conflictPolicy: options.conflict,
        admin,
        onProgress: () => undefined,
      });
      print({ dry_run: dryRun, counts: countOutcomes(outcomes), schedules: outcomes }, () =>
        renderEventBridgeReport(outcomes, dryRun),
      );
      return anyNotAdded(outcomes) ? EXIT_OPERATION_FAILED : EXIT_OK;
    }
    const file = await readImportFile(path, io.cwd ?? process.cwd());
    const client = await admin();
    const progress = new ProgressBar(io.stderr, 'Importing', file.schedules.length + file.jobs.length);
    const submitOptions = {
      client,
      concurrency: options.concurrency,
      conflictPolicy: options.conflict,
      onProgress: (settled: number) => progress.advance(settled),
    };
    const schedules = await submitSchedules(file.schedules, submitOptions);
    const jobs = await submitJobs(file.jobs, submitOptions);
    progress.finish();
    const outcomes = [...schedules, ...jobs];
    const failed = outcomes.filter((outcome) => !outcome.ok).length;
    const report = { succeeded: outcomes.length - failed, failed, schedules, jobs };
    print(report, () => renderImportReport(schedules, jobs));
    return failed > 0 ? EXIT_OPERATION_FAILED : EXIT_OK;
  },
});

/**
 * One line per item, failures with the admin API's code and message, then the totals:
 *
 *   Schedules: 2 ok, 1 failed
 *     ok      schedules[0]  nightly  added
 *     FAILED  schedules[1]  broken   invalid_input: trigger.expression: invalid cron expression …
 */
export function renderImportReport(schedules: readonly ItemOutcome[], jobs: readonly ItemOutcome[]): string {
  const sections = [
    ['Schedules', 'schedules', schedules],
    ['Jobs', 'jobs', jobs],
  ] as const;
  const parts = sections.flatMap(([title, list, outcomes]) => {
    if (outcomes.length === 0) return [];
    const failed = outcomes.filter((outcome) => !outcome.ok).length;
    const rows = outcomes.map((outcome) => [
      outcome.ok ? 'ok' : 'FAILED',
      `${list}[${outcome.index}]`,
      outcome.id ?? '-',
      outcome.ok ? (outcome.status ?? '') : `${outcome.error?.code}: ${outcome.error?.message}`,
    ]);
    const table = renderTable(['STATUS', 'ITEM', 'ID', 'OUTCOME'], rows).split('\n').slice(1);
    return [
      `${title}: ${outcomes.length - failed} ok, ${failed} failed`,
      ...table.map((line) => `  ${line}`),
      '',
    ];
  });
  const all = [...schedules, ...jobs];
  const failed = all.filter((outcome) => !outcome.ok).length;
  const total =
    failed === 0
      ? `Imported all ${all.length} items.`
      : `Imported ${all.length - failed} of ${all.length} items; ${failed} failed.`;
  return [...parts, total].join('\n');
}
