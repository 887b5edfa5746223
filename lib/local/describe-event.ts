import type { PutEventsEntry } from './put-events-server';

/**
 * One line per event the local bus received: what happened to which job or schedule (payloads and
 * return values stay out of the log).
 */
export function describeEvent(entry: PutEventsEntry): string {
  try {
    const detail = JSON.parse(entry.Detail ?? '{}') as Record<string, unknown>;
    // Job events are camelCase; failure notices (a failure destination that is a bus) are snake_case.
    const jobId = detail.jobId ?? detail.job_id;
    if (typeof jobId !== 'string') return describeScheduleEvent(entry.DetailType, detail);
    const result = detail.result as
      | { outcome?: string; error?: { type?: string; message?: string } }
      | undefined;
    const failure = (result?.error ?? detail.error) as { type?: string; message?: string } | null | undefined;
    const error = failure ? ` error=${failure.type}: ${failure.message}` : '';
    return `event ${entry.DetailType} task=${detail.task} job=${jobId} attempt=${detail.attempt ?? detail.attempts}${error}`;
  } catch {
    return `event ${entry.DetailType} (unreadable detail)`;
  }
}

function describeScheduleEvent(type: string | undefined, detail: Record<string, unknown>): string {
  const runs = detail.maxRuns === null ? `${detail.runs}` : `${detail.runs}/${detail.maxRuns}`;
  const reason = detail.reason === undefined ? '' : ` reason=${detail.reason}`;
  const deployment = detail.deployment === undefined ? '' : ` deployment=${detail.deployment}`;
  return `event ${type} schedule=${detail.scheduleId} task=${detail.task} version=${detail.version} runs=${runs}${reason}${deployment}`;
}
