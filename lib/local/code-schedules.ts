import type { DesiredSchedule } from '../core/code-schedules/desired';
import { isoUtc } from '../core/instants';
import type { AdminDeps } from '../runtime/admin/deps';
import {
  ReconcileRefusedError,
  type ReconcileReport,
  reconcileSchedules,
} from '../runtime/code-schedules/reconcile';

/**
 * Reconciles the schedules declared in `functions/` as a deploy does (the same use cases), one run at a
 * time, and prints what it changed. Locally any removal is allowed: deleting a declaration removes its
 * schedule at the next reload. A refused or failed run is printed; the platform goes on.
 */
export function localReconciler(
  deps: () => AdminDeps,
  log: (line: string) => void,
): (schedules: readonly DesiredSchedule[]) => Promise<void> {
  let running: Promise<void> = Promise.resolve();
  return (schedules) => {
    running = running.then(async () => {
      const admin = deps();
      const deployment = `npm start ${isoUtc(admin.clock.now())}`;
      try {
        const report = await reconcileSchedules(admin, schedules, { deployment, maxRemovalPercent: 100 });
        for (const line of describeReport(report)) log(line);
      } catch (error) {
        const problems = error instanceof ReconcileRefusedError ? error.problems : [String(error)];
        log(`schedules from code not reconciled:\n  ${problems.join('\n  ')}`);
      }
    });
    return running;
  };
}

/** `schedules from code: added a, b; updated c (trigger, payload); removed d; 2 unchanged`, and any drift. */
export function describeReport(report: ReconcileReport): string[] {
  const parts = [
    report.created.length > 0 && `added ${report.created.join(', ')}`,
    report.updated.length > 0 &&
      `updated ${report.updated.map(({ id, fields }) => `${id} (${fields.join(', ')})`).join(', ')}`,
    report.removed.length > 0 && `removed ${report.removed.join(', ')}`,
    report.unchanged > 0 && `${report.unchanged} unchanged`,
  ].filter((part): part is string => typeof part === 'string');
  return [
    `schedules from code: ${parts.join('; ') || 'none declared'}`,
    ...report.drift.map((drift) =>
      drift.kind === 'paused'
        ? `schedule ${drift.id} is paused through ${drift.by} (last changed ${drift.at}): deploys keep it paused`
        : `schedule ${drift.id} was edited ${drift.by} (last changed ${drift.at}): the next deploy writes its declaration again`,
    ),
  ];
}
