import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireJob, WireSchedule, WireTask } from '../../lib/cli/admin/wire';
import { type CliPlatform, startCliPlatform, sundial, waitFor } from './support';

let sundialPlatform: CliPlatform;
// Cron hours twelve hours from now, so no fire falls within the dispatch horizon whenever CI runs.
const berlinHour = (DateTime.now().setZone('Europe/Berlin').hour + 12) % 24;
const berlinTime = `${String(berlinHour).padStart(2, '0')}:00:00`;
const utcHour = (new Date().getUTCHours() + 12) % 24;
const cli = (args: readonly string[]) => sundialPlatform.cli(args);
const json = <T>(args: readonly string[]) => sundialPlatform.json<T>(args);

beforeAll(async () => {
  sundialPlatform = await startCliPlatform();
});

afterAll(async () => {
  await sundialPlatform?.stop();
});

describe('sundial schedules, against the local platform', () => {
  it('adds a cron schedule and shows its next fire time in its own time zone', async () => {
    // Act
    const added = await cli([
      'schedules',
      'add',
      '--id',
      'nightly',
      '--task',
      'report',
      '--cron',
      `0 ${berlinHour} * * MON-FRI`,
      '--timezone',
      'Europe/Berlin',
      '--payload',
      '{"team":"ops"}',
      '--tag',
      'reports',
      '--misfire-grace',
      '10m',
    ]);

    // Assess
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(
      new RegExp(
        `^Added schedule 'nightly' \\(report\\): next fire \\w{3} \\d{4}-\\d\\d-\\d\\d ${berlinTime} CES?T \\(in [^)]+\\)\\.\n`,
      ),
    );
    const { schedule } = await json<{ schedule: WireSchedule }>(['schedules', 'get', 'nightly']);
    expect(schedule).toMatchObject({
      task: 'report',
      timezone: 'Europe/Berlin',
      payload: { team: 'ops' },
      tags: ['reports'],
      misfire_grace_seconds: 600,
      paused: false,
    });
  });

  it('lists schedules as a table and as JSON', async () => {
    const table = await cli(['schedules', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+TASK\s+TRIGGER\s+ZONE\s+NEXT FIRE/);
    expect(table.stdout).toMatch(
      new RegExp(
        `nightly\\s+report\\s+cron 0 ${berlinHour} \\* \\* MON-FRI\\s+Europe/Berlin\\s+.* ${berlinTime} CES?T \\(in .*\\)\\s+active\\s+reports`,
      ),
    );
    const page = await json<{ schedules: WireSchedule[]; cursor: null }>([
      'schedules',
      'list',
      '--task',
      'report',
    ]);
    expect(page.schedules.map((schedule) => schedule.id)).toContain('nightly');
  });

  it('pauses and resumes a schedule', async () => {
    const paused = await cli(['schedules', 'pause', 'nightly']);
    expect(paused).toMatchObject({
      code: 0,
      stdout: "Paused schedule 'nightly'. Resume it with: sundial schedules resume nightly\n",
    });
    expect((await json<{ schedule: WireSchedule }>(['schedules', 'get', 'nightly'])).schedule.paused).toBe(
      true,
    );
    expect(
      (await json<{ schedules: WireSchedule[] }>(['schedules', 'list', '--paused'])).schedules.map(
        (s) => s.id,
      ),
    ).toEqual(['nightly']);

    const resumed = await cli(['schedules', 'resume', 'nightly']);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/^Resumed schedule 'nightly' \(report\): next fire /);
    expect((await json<{ schedule: WireSchedule }>(['schedules', 'get', 'nightly'])).schedule.paused).toBe(
      false,
    );
  });

  it('previews a stored schedule in its time zone', async () => {
    const preview = await cli([
      'schedules',
      'preview',
      'nightly',
      '--count',
      '2',
      '--from',
      '2026-03-26T22:59:00Z',
    ]);
    const utcOf = (day: number) =>
      DateTime.fromObject({ year: 2026, month: 3, day, hour: berlinHour }, { zone: 'Europe/Berlin' })
        .toUTC()
        .toISO({ suppressMilliseconds: true });
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stdout.split('\n').slice(0, 3)).toEqual([
      expect.stringMatching(/^#\s+Europe\/Berlin\s+UTC\s+WHEN$/),
      expect.stringMatching(new RegExp(`^1\\s+Fri 2026-03-27 ${berlinTime} CET\\s+${utcOf(27)}\\s+`)),
      expect.stringMatching(new RegExp(`^2\\s+Mon 2026-03-30 ${berlinTime} CEST\\s+${utcOf(30)}\\s+`)),
    ]);
  });

  it('runs a schedule now and reads the job’s result', async () => {
    // Act
    const started = await json<{ job: WireJob }>(['schedules', 'run', 'nightly']);
    const jobId = started.job.id;
    const result = await waitFor(
      () => cli(['jobs', 'result', jobId]),
      (answer) => answer.code === 0,
    );

    // Assess
    expect(jobId).toMatch(/^nightly@run-/);
    expect(result.stdout).toMatch(/^outcome\s+success$/m);
    expect(result.stdout).toContain('"team": "ops"');
  });

  it('runs an interval schedule on its own and lists its jobs', async () => {
    // Act
    const added = await cli(['schedules', 'add', '--id', 'every-second', '--task', 'echo', '--every', '1s']);
    const jobs = await waitFor(
      () => json<{ jobs: WireJob[] }>(['jobs', 'list', '--schedule', 'every-second', '--status', 'success']),
      (page) => page.jobs.length >= 2,
    );
    await cli(['schedules', 'pause', 'every-second']);

    // Assess
    expect(added.code, added.stderr).toBe(0);
    expect(jobs.jobs.length).toBeGreaterThanOrEqual(2);
    expect(jobs.jobs[0]?.id).toMatch(/^every-second@\d+$/);
    const table = await cli([
      'jobs',
      'list',
      '--schedule',
      'every-second',
      '--status',
      'success',
      '--limit',
      '1',
    ]);
    expect(table.stdout).toMatch(/^ID\s+TASK\s+STATUS\s+FIRE \/ RUN AT\s+DURATION\s+ATTEMPT\s+ERROR\n/);
    expect(table.stdout).toMatch(
      /every-second@\d+\s+echo\s+success\s+\w{3} [\d-]+ [\d:.]+ UTC \((\d+ s ago|now)\)/,
    );
    expect(table.stdout).toContain('More jobs: add --cursor ');
  });

  it('removes a schedule; reading it afterwards fails with exit 1', async () => {
    expect(await cli(['schedules', 'remove', 'every-second'])).toMatchObject({
      code: 0,
      stdout: "Removed schedule 'every-second'.\n",
    });
    const again = await cli(['schedules', 'get', 'every-second']);
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toBe("error: schedule_not_found: schedule 'every-second' does not exist\n");
  });

  it('adds a schedule with --max-runs and --keep-finished, shows its runs, and changes both', async () => {
    const added = await cli([
      'schedules',
      'add',
      '--id',
      'trial',
      '--task',
      'echo',
      '--cron',
      `0 ${utcHour} * * *`,
      '--max-runs',
      '2',
      '--keep-finished',
    ]);
    expect(added.code, added.stderr).toBe(0);
    const shown = await cli(['schedules', 'get', 'trial']);
    expect(shown.stdout).toMatch(/\nruns\s+0 of 2\n/);
    expect(shown.stdout).toMatch(/\nwhen finished\s+kept\n/);

    const updated = await cli(['schedules', 'update', 'trial', '--max-runs', 'none', '--no-keep-finished']);
    expect(updated.code, updated.stderr).toBe(0);
    const { schedule } = await json<{ schedule: WireSchedule }>(['schedules', 'get', 'trial']);
    expect(schedule).toMatchObject({ max_runs: null, keep_finished: false, runs: 0, finished: false });

    const refused = await cli(['schedules', 'update', 'trial', '--max-runs', '0']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('max_runs (--max-runs): must be a whole number from 1 to 1000000000');
  });
});

describe('sundial jobs and tasks, against the local platform', () => {
  it('adds a job for later, shows it queued, and cancels it', async () => {
    const added = await cli([
      'jobs',
      'add',
      '--task',
      'echo',
      '--id',
      'later',
      '--in',
      '1h',
      '--payload',
      '{"n":1}',
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(
      /^Job 'later' \(echo\) added, parked until a tick sends it; runs .* \(in 1 h\)\.$/m,
    );
    expect((await json<{ job: WireJob }>(['jobs', 'get', 'later'])).job).toMatchObject({
      status: 'queued',
      payload: { n: 1 },
    });

    const early = await cli(['jobs', 'result', 'later']);
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(/^error: no_result_yet: job 'later' has no result yet/);

    expect(await cli(['jobs', 'cancel', 'later'])).toMatchObject({
      code: 0,
      stdout: "Cancelled job 'later' (echo).\n",
    });
    const details = await cli(['jobs', 'get', 'later', '--timezone', 'Asia/Tokyo']);
    expect(details.stdout).toMatch(/^status\s+cancelled$/m);
    expect(details.stdout).toMatch(/^run at\s+\w{3} [\d-]+ [\d:.]+ \+09:00 \(in 1 h\)$/m);
  });

  it('asks a running job to stop, which then ends cancelled', async () => {
    await json(['jobs', 'add', '--task', 'echo', '--id', 'long', '--payload', '{"waitMs":60000}']);
    await waitFor(
      () => json<{ job: WireJob }>(['jobs', 'get', 'long']),
      (answer) => answer.job.status === 'running',
    );

    const asked = await cli(['jobs', 'cancel', 'long']);
    const details = await cli(['jobs', 'get', 'long']);
    const result = await cli(['jobs', 'result', 'long', '--wait']);

    expect(asked).toMatchObject({ code: 0 });
    expect(asked.stdout).toMatch(
      /^Asked job 'long' \(echo\) to stop: it ends cancelled once its handler settled\./,
    );
    expect(details.stdout).toMatch(/^cancel asked\s+\w{3} [\d-]+ [\d:.]+ UTC/m);
    expect(result.stdout).toMatch(/^outcome\s+cancelled$/m);
    expect(result.stdout).toMatch(/^error\s+CancelledError: cancel_job asked the running job to stop/m);
  });

  it('shows a failed job’s error with its stack', async () => {
    await json(['jobs', 'add', '--task', 'explode', '--id', 'doomed']);
    const result = await waitFor(
      () => cli(['jobs', 'result', 'doomed']),
      (answer) => answer.code === 0,
    );
    expect(result.stdout).toMatch(/^outcome\s+error$/m);
    expect(result.stdout).toMatch(/^error\s+NonRetryableError: the report service refused the request$/m);
    expect(result.stdout).toMatch(
      /^stack\s+NonRetryableError: the report service refused the request\n\s+at /m,
    );
    const list = await cli(['jobs', 'list', '--task', 'explode']);
    expect(list.stdout).toMatch(/doomed\s+explode\s+error\s+.*NonRetryableError: the report service refused/);
  });

  it('runs a job and waits for its result, exiting 1 when it failed', async () => {
    const ran = await cli(['jobs', 'run', 'echo', '--payload', '{"n":1}', '--id', 'run-echo', '--wait']);
    const failed = await cli(['jobs', 'run', 'explode', '--wait', '20s']);
    const queued = await json<{ job_id: string; status: string; result: null }>([
      'jobs',
      'run',
      'echo',
      '--id',
      'run-later',
    ]);

    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^outcome\s+success$/m);
    expect(ran.stdout).toContain('"n": 1');
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/^error\s+NonRetryableError: the report service refused the request$/m);
    expect(queued).toEqual({ job_id: 'run-later', status: 'queued', result: null });
  });

  it('runs a job whose payload holds characters outside the BMP (an emoji), as it would run in AWS', async () => {
    // Act: the SQS emulator refuses such characters raw; SQS takes them
    const ran = await json<{ status: string; result: { outcome: string; return_value: unknown } | null }>([
      'jobs',
      'run',
      'echo',
      '--payload',
      '{"text":"good morning \u{1F305}"}',
      '--id',
      'run-sunrise',
      '--wait',
    ]);

    // Assess
    expect(ran).toMatchObject({
      status: 'success',
      result: { outcome: 'success', return_value: { echoed: { text: 'good morning \u{1F305}' } } },
    });
  });

  it('finds failed jobs of every task, counts them, and retries one keeping its history', async () => {
    const failed = await json<{ jobs: WireJob[] }>(['jobs', 'list', '--status', 'error', '--since', '1h']);
    const counts = await cli(['jobs', 'count', '--task', 'explode']);
    const retried = await cli(['jobs', 'retry', 'doomed']);
    const again = await waitFor(
      () => json<{ job: WireJob }>(['jobs', 'get', 'doomed']),
      (answer) => answer.job.status === 'error',
    );
    const details = await cli(['jobs', 'get', 'doomed']);
    const refused = await cli(['jobs', 'retry', 'run-echo']);

    expect(failed.jobs.map((job) => job.id)).toContain('doomed');
    expect(counts.stdout).toMatch(/^TASK\s+ERROR\s+COUNTED\nexplode\s+\d+\s+\d+$/m);
    expect(retried).toMatchObject({ code: 0 });
    expect(retried.stdout).toMatch(/^Retrying job 'doomed' \(explode\) as attempt 2\./);
    expect(again.job).toMatchObject({ attempt: 2, result: { attempt: 2 } });
    expect(again.job.history?.map((entry) => [entry.outcome, entry.attempt])).toEqual([['error', 1]]);
    expect(details.stdout).toMatch(/^Before a retry:\noutcome\s+error$/m);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('job_not_retryable');
  });

  it('lists the tasks with their running jobs against their limit', async () => {
    const table = await cli(['tasks', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^TASK\s+RUNNING \/ LIMIT\s+RATE LIMIT\s+WAITING\s+PAUSED\s+TIMEOUT/);
    expect(table.stdout).toMatch(/^report\s+0 \/ 2\s+/m);
    expect(table.stdout).toMatch(/^echo\s+0 \/ ∞\s+/m);
    const { tasks } = await json<{ tasks: WireTask[] }>(['tasks', 'list']);
    expect(tasks.map((task) => task.id)).toEqual(['echo', 'explode', 'report']);
  });

  it('pauses and resumes a task', async () => {
    const paused = await cli(['tasks', 'pause', 'report']);
    const whilePaused = await json<{ tasks: WireTask[] }>(['tasks', 'list']);
    const resumed = await cli(['tasks', 'resume', 'report']);
    const unknown = await cli(['tasks', 'pause', 'reprot']);

    expect(paused).toMatchObject({ code: 0 });
    expect(paused.stdout).toMatch(/^Paused task 'report' \(0 waiting\)/);
    expect(whilePaused.tasks.find((task) => task.id === 'report')).toMatchObject({ paused: true });
    expect(resumed.stdout).toMatch(/^Resumed task 'report': 0 woken, 0 waiting\./);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/unknown_task: task 'reprot' is not registered/);
  });
});

describe('sundial import', () => {
  it('adds the valid items of a mixed YAML file, reports each one, and exits 1', async () => {
    // Prepare
    const dir = await mkdtemp(join(tmpdir(), 'sundial-import-'));
    await writeFile(
      join(dir, 'bulk.yaml'),
      [
        'schedules:',
        '  - { id: imported-a, task: echo, trigger: { type: cron, expression: "0 6 * * *" } }',
        '  - { id: imported-b, task: report, trigger: { type: cron, expression: "*/0 * * * *" }, payload: { team: ops } }',
        '  - { id: imported-c, task: report, trigger: { type: interval, hours: 1 }, payload: { team: "" } }',
        'jobs:',
        '  - { job_id: imported-job, task: echo, run_at: "2030-01-01T00:00:00Z" }',
        '  - { task: no-such-task }',
      ].join('\n'),
    );

    // Act
    const result = await sundialPlatform.cli(['import', 'bulk.yaml'], { cwd: dir });

    // Assess
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    expect(result.stdout.split('\n')).toEqual([
      'Schedules: 1 ok, 2 failed',
      '  ok      schedules[0]  imported-a  added',
      "  FAILED  schedules[1]  imported-b  invalid_input: trigger.expression: invalid cron expression '*/0 * * * *': step must be at least 1",
      '  FAILED  schedules[2]  imported-c  invalid_input: payload.team: Too small: expected string to have >=1 characters',
      '',
      'Jobs: 1 ok, 1 failed',
      '  ok      jobs[0]  imported-job  added',
      "  FAILED  jobs[1]  -             unknown_task: task 'no-such-task' is not registered; known tasks: echo, explode, report",
      '',
      'Imported 2 of 5 items; 3 failed.',
      '',
    ]);
    expect((await json<{ schedule: WireSchedule }>(['schedules', 'get', 'imported-a'])).schedule.task).toBe(
      'echo',
    );
    expect((await cli(['schedules', 'get', 'imported-b'])).code).toBe(1);
  });

  it('draws a progress bar on a terminal only', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sundial-import-'));
    const jobs = Array.from({ length: 3 }, (_, index) => ({
      task: 'echo',
      job_id: `bar-${index}`,
      run_at: '2030-01-01T00:00:00Z',
    }));
    await writeFile(join(dir, 'jobs.json'), JSON.stringify({ jobs }));
    const result = await sundialPlatform.cli(['import', 'jobs.json', '--json'], { cwd: dir, tty: true });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('\rImporting [##############################] 3/3');
    expect(JSON.parse(result.stdout)).toMatchObject({ succeeded: 3, failed: 0 });
  });
});

describe('exit codes and messages', () => {
  it('exits 1 with every field path when the admin API rejects the input', async () => {
    const result = await cli([
      'schedules',
      'add',
      '--task',
      'report',
      '--cron',
      '*/0 * * * *',
      '--payload',
      '{"team":7}',
      '--jitter',
      '2h',
    ]);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr.split('\n')).toEqual([
      'error: invalid_input: the admin API rejected 3 fields:',
      '  max_jitter_seconds (--jitter): must be a whole number from 0 to 3600',
      "  trigger.expression (--cron): invalid cron expression '*/0 * * * *': step must be at least 1",
      '  payload.team (--payload): Invalid input: expected string, received number',
      '',
    ]);
  });

  it('exits 1 for an unknown task', async () => {
    const result = await cli(['schedules', 'add', '--task', 'reprot', '--every', '1m']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "error: unknown_task: task 'reprot' is not registered; known tasks: echo, explode, report\n",
    );
  });

  it('sends a negative number as the flag’s value, so the admin API names the field and its flag', async () => {
    const result = await cli(['jobs', 'list', '--task', 'echo', '--limit', '-5']);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(
      /^error: invalid_input: the admin API rejected 1 field:\n {2}limit \(--limit\): /,
    );
    const joined = await cli(['jobs', 'list', '--task', 'echo', '--limit=-5']);
    expect(joined).toEqual(result);
  });

  it('exits 1 with a hint when the local platform is not running', async () => {
    const result = await sundial(['schedules', 'list', '--local'], { env: { SUNDIAL_PORT: '1' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^error: cannot reach the local platform at http:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/,
    );
    expect(result.stderr).toContain('hint: is the local platform running? start it with npm start\n');
  });

  it('finds the local platform without --local when it answers', async () => {
    const result = await sundial(['tasks', 'list', '--json'], {
      env: { SUNDIAL_PORT: sundialPlatform.port },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).tasks).toHaveLength(3);
  });
});
