import type { DeclaredField, DeclaredFields } from '../../core/code-schedules/desired';
import type { FireTimes, SchedulePlan } from '../../core/code-schedules/plan';
import { timeInZone } from '../../core/format/time-in-zone';
import { describeTrigger } from '../../core/format/triggers';
import { triggerTimezone } from '../../core/triggers';

/** What `sundial schedules plan` shows: the plan, against what, from which declarations. */
export interface PlanReport {
  /** `functions/`, or a synthesized template. */
  source: string;
  /** The admin API compared with: `the local platform at …`. */
  target: string;
  plan: SchedulePlan;
  /** Why the deploy would be refused, if it would. */
  refused: string | null;
  /** Schedules declared in the CDK app, which a `functions/` source cannot see: left out of the plan. */
  notCompared: string[];
}

const SHOWN_ON_CREATE: readonly DeclaredField[] = ['task', 'trigger', 'payload', 'description'];
/** The width of a field's name before its value. */
const LABEL = 13;

/**
 * The plan for people: a summary line, then `+ create`, `~ update` (each changed field, before → after)
 * and `- remove`, each with its next fire times in the schedule's time zone (before and after a changed
 * trigger), the drift a deploy keeps, and why the deploy would be refused.
 *
 * @example
 * ~ update nightly (functions/send-report.ts)
 *     trigger  cron 0 3 * * * (Europe/Berlin) → cron 0 3 * * * (America/New_York)
 *     next fires before  Tue 2026-12-01 03:00:00 CET, …
 *     next fires after   Tue 2026-12-01 03:00:00 EST, …
 */
export function renderPlan(report: PlanReport): string {
  const { plan } = report;
  const counts = [
    `${plan.create.length} to create`,
    `${plan.update.length} to update`,
    `${plan.remove.length} to remove`,
    `${plan.unchanged.length} unchanged`,
  ].join(', ');
  const lines = [`Schedules declared in ${report.source}, against ${report.target}: ${counts}`];
  for (const create of plan.create) {
    lines.push('', `+ create ${create.id} (${create.declaredIn})`);
    for (const field of SHOWN_ON_CREATE) {
      if (field !== 'description' || create.fields.description !== null) {
        lines.push(`    ${field.padEnd(LABEL)}${valueText(field, create.fields)}`);
      }
    }
    lines.push(`    ${'next fires'.padEnd(LABEL)}${fireList(create.fireTimesAfter)}`);
  }
  for (const update of plan.update) {
    lines.push('', `~ update ${update.id} (${update.declaredIn})`);
    for (const change of update.changes) {
      const before = valueText(change.field, { [change.field]: change.before });
      const after = valueText(change.field, { [change.field]: change.after });
      lines.push(`    ${change.field.padEnd(LABEL)}${before} → ${after}`);
    }
    if (update.changes.some((change) => change.field === 'trigger')) {
      lines.push(`    next fires before  ${fireList(update.fireTimesBefore)}`);
      lines.push(`    next fires after   ${fireList(update.fireTimesAfter)}`);
    }
  }
  for (const removal of plan.remove) {
    lines.push('', `- remove ${removal.id} (${removal.declaredIn}, task ${removal.task})`);
    lines.push(`    ${'next fires'.padEnd(LABEL)}${fireList(removal.fireTimesBefore)}`);
  }
  if (plan.clashes.length > 0) {
    lines.push('', `! declared in code but managed through the admin API: ${plan.clashes.join(', ')}`);
  }
  if (plan.drift.length > 0) {
    lines.push('', 'Drift (not made by a deploy):');
    for (const drift of plan.drift) {
      const what = drift.kind === 'paused' ? 'paused through' : 'edited';
      const kept = drift.kind === 'paused' ? 'a deploy keeps it' : 'a deploy writes the declaration again';
      lines.push(`  ${drift.id}  ${what} ${drift.by}, last changed ${drift.at}: ${kept}`);
    }
  }
  if (report.notCompared.length > 0) {
    lines.push(
      '',
      `Not compared (declared in the CDK app; plan from a synthesized template to see them): ${report.notCompared.join(', ')}`,
    );
  }
  if (report.refused) lines.push('', `! the deploy would be refused: ${report.refused}`);
  return lines.join('\n');
}

function valueText(field: DeclaredField, fields: Partial<DeclaredFields>): string {
  const value = fields[field];
  if (field === 'trigger' && fields.trigger) {
    return `${describeTrigger(fields.trigger)} (${triggerTimezone(fields.trigger)})`;
  }
  return field === 'task' ? String(value) : JSON.stringify(value);
}

/** `Mon 2026-12-01 09:00:00 CET, Tue …` (each fire time in its zone), or `none left`. */
function fireList(fires: FireTimes): string {
  if (fires.times.length === 0) return 'none left';
  return fires.times.map((fire) => timeInZone(Date.parse(fire.utc), fires.timezone)).join(', ');
}
