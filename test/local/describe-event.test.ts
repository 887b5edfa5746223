import { describe, expect, it } from 'vitest';
import { scheduleEvent } from '../../lib/core/ports/event-publisher';
import { describeEvent } from '../../lib/local/describe-event';
import { scheduleDefinition, T0 } from '../runtime/support';

describe('the local platform prints each event it receives', () => {
  it('a job event: type, task, job, attempt and the error, never the payload', () => {
    const detail = {
      type: 'job.failed',
      jobId: 'nightly@1',
      task: 'send-report',
      scheduleId: 'nightly',
      attempt: 3,
      at: T0,
      result: { outcome: 'error', error: { type: 'Error', message: 'SMTP timeout' } },
    };

    expect(describeEvent({ DetailType: 'job.failed', Detail: JSON.stringify(detail) })).toBe(
      'event job.failed task=send-report job=nightly@1 attempt=3 error=Error: SMTP timeout',
    );
  });

  it('a schedule event: type, schedule, task, version, runs of max_runs, and why it was removed', () => {
    const schedule = {
      ...scheduleDefinition('trial', { maxRuns: 3 }),
      nextFireAt: null,
      lastFireAt: T0,
      runs: 3,
      firesFrom: T0,
      version: 2,
      createdAt: T0,
      updatedAt: T0,
      chain: 'c1',
      startedRuns: 0,
      lastStartedFireAt: null,
    };
    const removed = scheduleEvent('schedule.removed', schedule, T0, 'finished');
    const added = scheduleEvent('schedule.added', { ...schedule, maxRuns: null, runs: 0 }, T0);

    expect(describeEvent({ DetailType: removed.type, Detail: JSON.stringify(removed) })).toBe(
      'event schedule.removed schedule=trial task=echo version=2 runs=3/3 reason=finished',
    );
    expect(describeEvent({ DetailType: added.type, Detail: JSON.stringify(added) })).toBe(
      'event schedule.added schedule=trial task=echo version=2 runs=0',
    );
  });

  it('an unreadable detail, without failing', () => {
    expect(describeEvent({ DetailType: 'schedule.added', Detail: '{' })).toBe(
      'event schedule.added (unreadable detail)',
    );
  });
});
