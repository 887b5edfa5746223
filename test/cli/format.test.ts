import { describe, expect, it } from 'vitest';
import { AdminAnswerError } from '../../lib/cli/admin/answer';
import type { WireJob, WireSchedule, WireTask } from '../../lib/cli/admin/wire';
import { renderImportReport } from '../../lib/cli/commands/import';
import { writtenSummary } from '../../lib/cli/commands/schedules/add-update';
import { localWithRelative } from '../../lib/cli/format/instants';
import { renderJobTable, renderTaskTable } from '../../lib/cli/format/jobs';
import { upcomingFire } from '../../lib/cli/format/next-fire';
import { renderProgress } from '../../lib/cli/format/progress';
import { renderScheduleTable } from '../../lib/cli/format/schedules';
import { renderFields, renderTable } from '../../lib/cli/format/table';
import { durationSeconds } from '../../lib/cli/option-values';
import { describeAnswerError } from '../../lib/cli/report-error';
import { wireSchedule } from '../../lib/core/admin-contract';
import { ManualClock } from '../../lib/core/clock';
import { definition } from '../adapters/store-fixtures';

const NOW = Date.parse('2026-03-02T09:00:00Z');
const clock = new ManualClock(NOW);
const at = (offsetMs: number) => NOW + offsetMs;

describe('flags', () => {
  it('reads durations of flags', () => {
    expect(['90', '90s', '10m', '1h30m', '2d', '1w', '', '5x', 'm'].map(durationSeconds)).toEqual([
      90,
      90,
      600,
      5_400,
      172_800,
      604_800,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('times in a schedule’s time zone', () => {
  it('shows wall-clock time in the zone with the relative time', () => {
    expect(localWithRelative('2026-03-02T09:00:42Z', 'Asia/Kolkata', clock)).toBe(
      'Mon 2026-03-02 14:30:42 IST (in 42 s)',
    );
    expect(localWithRelative('2026-03-02T08:57:00Z', 'Asia/Tokyo', clock)).toBe(
      'Mon 2026-03-02 17:57:00 +09:00 (3 min ago)',
    );
    expect(localWithRelative(null, 'UTC', clock)).toBe('-');
  });
});

describe('tables', () => {
  it('pads columns two spaces apart without trailing spaces', () => {
    expect(
      renderTable(
        ['ID', 'TASK', 'TAGS'],
        [
          ['nightly', 'send-report', ''],
          ['a', 'b', 'x'],
        ],
      ),
    ).toBe('ID       TASK         TAGS\nnightly  send-report\na        b            x');
    expect(
      renderFields([
        ['id', 'x'],
        ['payload', '{\n}'],
      ]),
    ).toBe('id       x\npayload  {\n         }');
  });

  it('lists schedules with their next fire time in their own zone, relative to the clock', () => {
    const berlin = schedule({
      id: 'nightly',
      trigger: { type: 'cron', expression: '42 0 10 * * *', timezone: 'Europe/Berlin' },
      next_fire_time: '2026-03-03T09:00:42Z',
      timezone: 'Europe/Berlin',
      tags: ['a', 'b'],
    });
    const paused = schedule({
      id: 'paused-one',
      paused: true,
      trigger: { type: 'interval', hours: 1, minutes: 30 },
    });
    const finished = schedule({
      id: 'done',
      next_fire_time: null,
      trigger: { type: 'date', run_at: '2026-03-01T00:00:00Z' },
    });
    expect(renderScheduleTable([berlin, paused, finished], clock).split('\n')).toEqual([
      'ID          TASK         TRIGGER                       ZONE           NEXT FIRE (schedule’s zone)            STATE     TAGS',
      'nightly     send-report  cron 42 0 10 * * *            Europe/Berlin  Mon 2026-03-02 10:00:42 CET (in 42 s)  active    a,b',
      'paused-one  send-report  every 1h30m                   UTC            -                                      paused',
      'done        send-report  once at 2026-03-01T00:00:00Z  UTC            -                                      finished',
    ]);
  });

  it('shows a dispatched fire as the next fire, although the API’s next_fire_time is the next undispatched one', () => {
    const everyFiveSeconds = schedule({
      trigger: { type: 'interval', seconds: 5, start_at: '2026-03-02T08:00:00Z' },
      next_fire_time: '2026-03-02T09:01:35Z',
    });
    expect(upcomingFire(everyFiveSeconds, at(2_000))).toBe(at(5_000));
    expect(upcomingFire({ ...everyFiveSeconds, paused: true }, at(2_000))).toBe(
      Date.parse('2026-03-02T09:01:35Z'),
    );
    const dispatchedOnce = schedule({
      trigger: { type: 'date', run_at: '2026-03-02T09:00:30Z' },
      next_fire_time: null,
    });
    expect(upcomingFire(dispatchedOnce, NOW)).toBe(at(30_000));
    expect(upcomingFire(dispatchedOnce, at(31_000))).toBeNull();
    // Finished by max_runs: its trigger fires on, but nothing after its last dispatched fire runs.
    const reachedMaxRuns = {
      ...everyFiveSeconds,
      next_fire_time: null,
      last_fire_time: '2026-03-02T09:00:10Z',
      finished: true,
      runs: 3,
      max_runs: 3,
    };
    expect(upcomingFire(reachedMaxRuns, at(2_000))).toBe(at(5_000));
    expect(upcomingFire(reachedMaxRuns, at(11_000))).toBeNull();
  });

  it('lists jobs with duration and a shortened error', () => {
    const failed = job({
      id: 'nightly@1772442000000',
      status: 'error',
      fire_time: '2026-03-02T08:59:00Z',
      result: {
        outcome: 'error',
        error: { type: 'Error', message: `database unreachable ${'x'.repeat(80)}` },
        started_at: '2026-03-02T08:59:00.100Z',
        finished_at: '2026-03-02T08:59:02.600Z',
        duration_seconds: 2.5,
        attempt: 3,
      },
      attempt: 3,
    });
    const lines = renderJobTable([failed], 'Europe/Berlin', clock).split('\n');
    expect(lines[1]).toMatch(
      /^nightly@1772442000000 {2}send-report {2}error {3}Mon 2026-03-02 09:59:00 CET \(1 min ago\) {2}2\.5 s {5}3 {8}Error: database unreachable x+…$/,
    );
    expect(lines[1]?.endsWith('…')).toBe(true);
    expect(renderJobTable([], 'UTC', clock)).toBe('No jobs.');
  });

  it('lists tasks with running jobs against their limit, their rate limit, waiting jobs and whether paused', () => {
    const tasks: WireTask[] = [
      {
        id: 'cleanup',
        max_running_jobs: 2,
        rate_limit: { max: 10, per_seconds: 60 },
        misfire_grace_seconds: 120,
        timeout_seconds: 60,
        retry: { max_attempts: 5, backoff_seconds: 2, max_backoff_seconds: 300 },
        result_ttl_seconds: 604_800,
        events: 'all',
        has_payload_schema: false,
        running: 1,
        waiting: 12,
        paused: true,
      },
      {
        id: 'report',
        max_running_jobs: null,
        rate_limit: null,
        misfire_grace_seconds: null,
        timeout_seconds: 60,
        retry: { max_attempts: 3, backoff_seconds: 2, max_backoff_seconds: 300 },
        result_ttl_seconds: 3600,
        events: 'failures',
        has_payload_schema: true,
        running: 0,
        waiting: 0,
        paused: false,
      },
    ];
    expect(renderTaskTable(tasks).split('\n')).toEqual([
      'TASK     RUNNING / LIMIT  RATE LIMIT    WAITING  PAUSED  TIMEOUT  MISFIRE GRACE  ATTEMPTS      RESULTS KEPT  EVENTS    SCHEMA',
      'cleanup  1 / 2            10 per 1 min  12       yes     1 min    120 s          5 × from 2 s  7 d           all       no',
      'report   0 / ∞            none          0        no      1 min    none           3 × from 2 s  1 h           failures  yes',
    ]);
  });
});

describe('messages', () => {
  it('lists each invalid field with the flag that set it', () => {
    const error = new AdminAnswerError(
      {
        code: 'invalid_input',
        message: 'joined',
        details: [
          { path: 'trigger.expression', message: 'bad step' },
          { path: 'payload.team.name', message: 'expected string' },
          { path: 'colour', message: 'is not a known field' },
        ],
      },
      { trigger: '--cron', payload: '--payload' },
    );
    expect(describeAnswerError(error)).toBe(
      'error: invalid_input: the admin API rejected 3 fields:\n  trigger.expression (--cron): bad step\n  payload.team.name (--payload): expected string\n  colour: is not a known field\n',
    );
  });

  it('reports an import item by item', () => {
    const report = renderImportReport(
      [{ kind: 'schedule', index: 0, id: 'a', ok: true, status: 'added' }],
      [
        {
          kind: 'job',
          index: 0,
          id: null,
          ok: false,
          error: { code: 'unknown_task', message: "task 'x' is not registered" },
        },
      ],
    );
    expect(report.split('\n')).toEqual([
      'Schedules: 1 ok, 0 failed',
      '  ok      schedules[0]  a   added',
      '',
      'Jobs: 0 ok, 1 failed',
      "  FAILED  jobs[0]  -   unknown_task: task 'x' is not registered",
      '',
      'Imported 1 of 2 items; 1 failed.',
    ]);
  });

  it('draws a progress bar', () => {
    expect(renderProgress('Importing', 12, 40)).toBe('Importing [#########.....................] 12/40');
    expect(renderProgress('Importing', 0, 0)).toBe('Importing [##############################] 0/0');
  });
});

/** A schedule as the admin API answers it (the contract's mapper), with `fields` changed. */
function schedule(fields: Partial<WireSchedule>): WireSchedule {
  const created = Date.parse('2026-03-01T00:00:00Z');
  const stored = wireSchedule({
    ...definition('nightly', {
      trigger: { type: 'cron', expression: '0 9 * * *' },
      payload: {},
      misfireGraceSeconds: null,
      tags: [],
    }),
    nextFireAt: Date.parse('2026-03-03T09:00:00Z'),
    lastFireAt: null,
    runs: 0,
    firesFrom: created,
    version: 1,
    createdAt: created,
    updatedAt: created,
    chain: 'c1',
    startedRuns: 0,
    lastStartedFireAt: null,
  });
  return { ...stored, ...fields };
}

function job(fields: Partial<WireJob>): WireJob {
  return {
    id: 'job',
    task: 'send-report',
    payload: {},
    origin: 'schedule',
    schedule_id: 'nightly',
    fire_time: null,
    run_at: '2026-03-02T08:59:00Z',
    start_deadline: null,
    max_attempts: null,
    backoff_seconds: null,
    timeout_seconds: null,
    result_ttl_seconds: null,
    metadata: {},
    attempt: 0,
    status: 'queued',
    created_at: '2026-03-02T08:59:00Z',
    started_at: null,
    finished_at: null,
    expires_at: null,
    result: null,
    ...fields,
  };
}

describe('the summary of an added or changed schedule', () => {
  const io = { stdout: { write: () => true }, stderr: { write: () => true }, clock };
  const added = (dispatched: number, fields: Partial<WireSchedule>) =>
    writtenSummary(
      'Added schedule',
      {
        dispatched_jobs: dispatched,
        schedule: schedule({
          created_at: '2026-03-02T08:59:59.950Z',
          updated_at: '2026-03-02T08:59:59.950Z',
          ...fields,
        }),
      },
      io,
    ).split('\n')[0];

  it('says a fire runs now when the change dispatched one due at once, then when the next comes', () => {
    // An interval starts firing when it is added: its first fire was dispatched 50 ms ago
    const interval = { type: 'interval', start_at: '2026-03-02T08:59:59.950Z', seconds: 10 } as const;

    const dispatched = {
      next_fire_time: '2026-03-02T09:01:39.950Z',
      last_fire_time: '2026-03-02T09:01:29.950Z',
    };

    expect(added(10, { trigger: interval, ...dispatched })).toBe(
      "Added schedule 'nightly' (send-report): fires now, next fire Mon 2026-03-02 09:00:09.950 UTC (in 10 s); 10 jobs dispatched now.",
    );
  });

  it('says only when the next fire comes when none was due', () => {
    const cron = { type: 'cron', expression: '0 10 * * *' } as const;

    expect(added(0, { trigger: cron, next_fire_time: '2026-03-02T10:00:00Z' })).toBe(
      "Added schedule 'nightly' (send-report): next fire Mon 2026-03-02 10:00:00 UTC (in 1 h).",
    );
  });
});
