import { renderTable } from '../../../format/table';
import type { EventBridgeOutcome } from './import-eventbridge';

const NOT_ADDED = new Set(['skipped', 'failed']);

/** The outcomes by status, for the summary and `--json`. */
export function countOutcomes(outcomes: readonly EventBridgeOutcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status } of outcomes) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** True when some schedule of the file was not (or would not be) added. */
export function anyNotAdded(outcomes: readonly EventBridgeOutcome[]): boolean {
  return outcomes.some((outcome) => NOT_ADDED.has(outcome.status));
}

/**
 * One line per EventBridge schedule, then its notes, then the totals:
 *
 *   STATUS   ITEM  SCHEDULE         ID       OUTCOME
 *   added    [0]   default/nightly  nightly
 *              - target arn:aws:lambda:…:function:report → task report
 *   skipped  [1]   default/hourly   -        has no ScheduleExpression (…)
 */
export function renderEventBridgeReport(outcomes: readonly EventBridgeOutcome[], dryRun: boolean): string {
  const rows = outcomes.map((outcome) => [
    outcome.status === 'failed' ? 'FAILED' : outcome.status,
    `[${outcome.index}]`,
    outcome.source,
    outcome.id ?? '-',
    outcome.problem ?? '',
  ]);
  const [header = '', ...lines] = renderTable(['STATUS', 'ITEM', 'SCHEDULE', 'ID', 'OUTCOME'], rows).split(
    '\n',
  );
  const body = lines.flatMap((line, position) => [
    line,
    ...(outcomes[position]?.notes ?? []).map((note) => `    - ${note}`),
  ]);
  const counts = Object.entries(countOutcomes(outcomes)).map(([status, count]) => `${count} ${status}`);
  const title = `${dryRun ? 'Dry run, nothing was added: ' : ''}${outcomes.length} EventBridge schedule${outcomes.length === 1 ? '' : 's'}: ${counts.join(', ')}.`;
  return [header, ...body, '', title].join('\n');
}
