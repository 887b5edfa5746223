import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireJob, WireSchedule } from '../../lib/cli/admin/wire';
import { type CliPlatform, startCliPlatform } from './support';

let sundialPlatform: CliPlatform;
const cli = (args: readonly string[]) => sundialPlatform.cli(args);
const json = <T>(args: readonly string[]) => sundialPlatform.json<T>(args);

beforeAll(async () => {
  sundialPlatform = await startCliPlatform();
});

afterAll(async () => {
  await sundialPlatform?.stop();
});

describe('sundial: overrides, metadata and descriptions, against the local platform', () => {
  it('sets, shows, filters by and clears a schedule’s overrides, metadata and description', async () => {
    const added = await cli([
      'schedules',
      'add',
      '--id',
      'acme-sync',
      '--task',
      'report',
      '--cron',
      '0 3 * * *',
      '--payload',
      '{"team":"acme"}',
      '--description',
      'Nightly report of acme',
      '--metadata',
      'tenant=acme',
      '--metadata',
      'tier=gold',
      '--max-attempts',
      '5',
      '--timeout-seconds',
      '30s',
      '--backoff-seconds',
      '1m',
      '--result-ttl-seconds',
      '1d',
    ]);
    await cli([
      'schedules',
      'add',
      '--id',
      'other',
      '--task',
      'report',
      '--cron',
      '0 3 * * *',
      '--payload',
      '{"team":"x"}',
    ]);

    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/description\s+Nightly report of acme/);
    expect(added.stdout).toMatch(/max attempts\s+5 \(overrides the task's\)/);
    expect(added.stdout).toMatch(/metadata\s+tenant=acme, tier=gold/);
    const { schedule } = await json<{ schedule: WireSchedule }>(['schedules', 'get', 'acme-sync']);
    expect(schedule).toMatchObject({
      description: 'Nightly report of acme',
      metadata: { tenant: 'acme', tier: 'gold' },
      max_attempts: 5,
      timeout_seconds: 30,
      backoff_seconds: 60,
      result_ttl_seconds: 86_400,
    });
    const filtered = await json<{ schedules: WireSchedule[] }>([
      'schedules',
      'list',
      '--metadata',
      'tenant=acme',
    ]);
    expect(filtered.schedules.map((item) => item.id)).toEqual(['acme-sync']);
    const wide = await cli(['schedules', 'list', '--metadata', 'tier=gold', '--wide']);
    expect(wide.stdout).toMatch(/^ID\s+TASK\s+TRIGGER\s+STATE\s+TAGS\s+DESCRIPTION\s+METADATA/);
    expect(wide.stdout).toMatch(/acme-sync\s+report\s+.*Nightly report of acme\s+tenant=acme, tier=gold/);

    const cleared = await cli([
      'schedules',
      'update',
      'acme-sync',
      '--max-attempts',
      'none',
      '--metadata',
      'none',
      '--description',
      '',
      // `none` reaches the admin API as null (commander would turn a parser's null into '').
      '--misfire-grace',
      'none',
    ]);

    expect(cleared.code, cleared.stderr).toBe(0);
    const after = await json<{ schedule: WireSchedule }>(['schedules', 'get', 'acme-sync']);
    expect(after.schedule.misfire_grace_seconds).toBeNull();
    expect(after.schedule).toMatchObject({
      max_attempts: null,
      timeout_seconds: 30,
      metadata: {},
      description: null,
    });
  });

  it('adds a job with overrides and metadata and lists jobs by metadata', async () => {
    const added = await json<{ job: WireJob }>([
      'jobs',
      'add',
      '--task',
      'report',
      '--id',
      'acme-once',
      '--payload',
      '{"team":"acme"}',
      '--max-attempts',
      '1',
      '--misfire-grace',
      'none',
      '--metadata',
      'source=cli',
    ]);
    const listed = await json<{ jobs: WireJob[] }>([
      'jobs',
      'list',
      '--task',
      'report',
      '--metadata',
      'source=cli',
    ]);
    const refused = await cli([
      'jobs',
      'add',
      '--task',
      'report',
      '--payload',
      '{"team":"a"}',
      '--timeout-seconds',
      '2h',
    ]);

    expect(added.job).toMatchObject({ max_attempts: 1, start_deadline: null, metadata: { source: 'cli' } });
    expect(listed.jobs.map((job) => job.id)).toEqual(['acme-once']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--timeout-seconds');
    expect(refused.stderr).toContain("must be at most the timeoutSeconds of task 'report' (60)");
  });

  it('adds a critical job with --priority, and names the flag when the level is unknown', async () => {
    const added = await json<{ job: { priority?: string } }>([
      'jobs',
      'add',
      '--task',
      'report',
      '--payload',
      '{"team":"a"}',
      '--priority',
      'critical',
      '--json',
    ]);
    const refused = await cli([
      'jobs',
      'add',
      '--task',
      'report',
      '--payload',
      '{"team":"a"}',
      '--priority',
      'urgent',
    ]);

    expect(added.job.priority).toBe('critical');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--priority');
  });

  it('adds a critical schedule with --priority, shows it, and clears it with --priority none', async () => {
    const added = await json<{ schedule: WireSchedule }>([
      'schedules',
      'add',
      '--id',
      'invoices',
      '--task',
      'report',
      '--payload',
      '{"team":"billing"}',
      '--cron',
      '0 3 * * *',
      '--priority',
      'critical',
      '--json',
    ]);
    const shown = await cli(['schedules', 'get', 'invoices']);
    const cleared = await json<{ schedule: WireSchedule }>([
      'schedules',
      'update',
      'invoices',
      '--priority',
      'none',
      '--json',
    ]);
    const refused = await cli(['schedules', 'update', 'invoices', '--priority', 'urgent']);

    expect(added.schedule.priority).toBe('critical');
    expect(shown.stdout).toMatch(/priority\s+critical/);
    expect(cleared.schedule).not.toHaveProperty('priority');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('priority (--priority): must be one of critical, normal');
  });

  it('rejects a --metadata that is not key=value before calling the admin API', async () => {
    const result = await cli(['jobs', 'add', '--task', 'report', '--metadata', 'tenant']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "option '--metadata <key=value>' argument 'tenant' is invalid. Expected key=value",
    );
  });
});
