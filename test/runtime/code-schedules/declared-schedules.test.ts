import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ScheduleDeclaration } from '../../../lib/core/code-schedules/declaration';
import {
  APP_DECLARATIONS,
  DeclaredSchedulesError,
  declaredSchedules,
} from '../../../lib/runtime/code-schedules/declared-schedules';
import { defineTask } from '../../../lib/runtime/tasks/define-task';
import { registryFromEntries } from '../../../lib/runtime/tasks/registry';

const report = z.strictObject({ team: z.string(), format: z.enum(['pdf', 'csv']).optional() });

/** `send-report` (payload schema, 60 s timeout, misfire grace 300 s) declaring `schedules`, and `cleanup`. */
function tasks(schedules: readonly ScheduleDeclaration<unknown>[], cleanup: readonly unknown[] = []) {
  return registryFromEntries([
    {
      id: 'send-report',
      file: 'functions/send-report.ts',
      module: {
        default: defineTask({
          payloadSchema: report,
          misfireGraceSeconds: 300,
          handler: () => undefined,
          schedules: schedules as ScheduleDeclaration<z.input<typeof report>>[],
        }),
      },
    },
    {
      id: 'cleanup',
      file: 'functions/cleanup.ts',
      module: { default: { ...defineTask({ handler: () => undefined }), schedules: cleanup } },
    },
  ]);
}

function problemsOf(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof DeclaredSchedulesError) return error.problems;
    throw error;
  }
  throw new Error('expected a DeclaredSchedulesError');
}

describe('schedules declared in code', () => {
  it('reads a cron or EventBridge expression with its time zone, and fills in every default', () => {
    const desired = declaredSchedules(
      tasks([
        { id: 'weekday', trigger: '0 9 * * MON-FRI', timezone: 'Europe/Berlin', payload: { team: 'ops' } },
        { id: 'often', trigger: 'rate(5 minutes)', payload: { team: 'ops' }, tags: ['a', 'a', 'b'] },
      ]),
    );

    expect(desired).toEqual([
      {
        id: 'often',
        declaredIn: 'functions/send-report.ts',
        fields: expect.objectContaining({
          trigger: { type: 'eventbridge', expression: 'rate(5 minutes)', start_at: '1970-01-01T00:00:00Z' },
          tags: ['a', 'b'],
        }),
      },
      {
        id: 'weekday',
        declaredIn: 'functions/send-report.ts',
        fields: {
          task: 'send-report',
          trigger: { type: 'cron', expression: '0 9 * * MON-FRI', timezone: 'Europe/Berlin' },
          payload: { team: 'ops' },
          coalesce: 'latest',
          misfire_grace_seconds: 300,
          max_jitter_seconds: 0,
          tags: [],
          metadata: {},
          description: null,
          priority: 'normal',
          max_attempts: null,
          backoff_seconds: null,
          timeout_seconds: null,
          result_ttl_seconds: null,
          keep_finished: true,
        },
      },
    ]);
  });

  it('counts an interval without start_at from the Unix epoch, so every environment agrees on its fire times', () => {
    const [desired] = declaredSchedules(
      tasks([{ id: 'i', trigger: { type: 'interval', minutes: 10 }, payload: { team: 'ops' } }]),
    );

    expect(desired?.fields.trigger).toEqual({
      type: 'interval',
      minutes: 10,
      start_at: '1970-01-01T00:00:00Z',
    });
  });

  it('takes the CDK app’s declarations, which name their task, with those of the tasks', () => {
    const desired = declaredSchedules(tasks([]), [
      { id: 'app-cleanup', task: 'cleanup', trigger: { type: 'interval', hours: 1 }, description: 'hourly' },
    ]);

    expect(desired).toMatchObject([
      { id: 'app-cleanup', declaredIn: APP_DECLARATIONS, fields: { task: 'cleanup', description: 'hourly' } },
    ]);
  });

  it('names the schedule and the field of every problem, as written', () => {
    const problems = problemsOf(() =>
      declaredSchedules(
        tasks([
          { id: 'wrong-payload', trigger: '0 9 * * *', payload: { team: 7 } as never },
          { id: 'wrong-zone', trigger: '0 9 * * *', timezone: 'Mars/Olympus', payload: { team: 'ops' } },
          { id: 'wrong-cron', trigger: '0 25 * * *', payload: { team: 'ops' } },
          {
            id: 'wrong-overrides',
            trigger: '0 9 * * *',
            payload: { team: 'ops' },
            overrides: { maxAttempts: 0, timeoutSeconds: 90, retries: 2 } as never,
          },
          {
            id: 'zone-twice',
            trigger: { type: 'cron', expression: '0 9 * * *', timezone: 'UTC' },
            timezone: 'Europe/Paris',
            payload: { team: 'ops' },
          },
          { id: 'extra', trigger: '0 9 * * *', payload: { team: 'ops' }, colour: 'blue' } as never,
        ]),
      ),
    );

    expect(problems).toEqual([
      expect.stringMatching(/^schedule 'wrong-payload' \(functions\/send-report\.ts\): payload\.team: /),
      expect.stringMatching(
        /^schedule 'wrong-zone' \(functions\/send-report\.ts\): timezone: unknown time zone 'Mars\/Olympus'/,
      ),
      expect.stringMatching(/^schedule 'wrong-cron' \(functions\/send-report\.ts\): trigger: .*hour/),
      "schedule 'wrong-overrides' (functions/send-report.ts): overrides.retries: is not an override; overrides: maxAttempts, backoffSeconds, timeoutSeconds, resultTtlSeconds",
      expect.stringMatching(
        /^schedule 'wrong-overrides' \(functions\/send-report\.ts\): overrides\.maxAttempts: /,
      ),
      "schedule 'wrong-overrides' (functions/send-report.ts): overrides.timeoutSeconds: must be at most the timeoutSeconds of task 'send-report' (60); an override may shorten the task's timeout, not lengthen it",
      "schedule 'zone-twice' (functions/send-report.ts): timezone: differs from trigger.timezone ('UTC'); give it once",
      expect.stringMatching(
        /^schedule 'extra' \(functions\/send-report\.ts\): colour: is not a field of a schedule declaration/,
      ),
    ]);
  });

  it('refuses an id declared twice, naming both places, and a task that does not exist', () => {
    const problems = problemsOf(() =>
      declaredSchedules(tasks([{ id: 'nightly', trigger: '0 3 * * *', payload: { team: 'ops' } }]), [
        { id: 'nightly', task: 'cleanup', trigger: '0 4 * * *' },
        { id: 'orphan', task: 'nope', trigger: '0 4 * * *' },
      ]),
    );

    expect(problems).toEqual([
      `schedule 'nightly' (${APP_DECLARATIONS}): id: declared twice, also in functions/send-report.ts; schedule ids must be unique`,
      `schedule 'orphan' (${APP_DECLARATIONS}): task: 'nope' is not a task; tasks: cleanup, send-report`,
    ]);
  });

  it('keeps a declaration whose trigger has fired for good: a deploy keeps such a schedule', () => {
    const desired = declaredSchedules(
      tasks([
        { id: 'once', trigger: { type: 'date', run_at: '2020-01-01T00:00:00Z' }, payload: { team: 'ops' } },
      ]),
    );

    expect(desired.map((schedule) => schedule.id)).toEqual(['once']);
  });
});
