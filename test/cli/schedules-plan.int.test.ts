import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanReport } from '../../lib/cli/format/plan';
import type { WireSchedule } from '../../lib/core/admin-contract';
import { ManualClock } from '../../lib/core/clock';
import { type DeclaredFields, storedFields } from '../../lib/core/code-schedules/desired';
import { type LocalPlatform, startLocalPlatform } from '../../lib/local/platform';
import { sundial } from './run-cli';
import { waitFor } from './support';

const ROOT = resolve(import.meta.dirname, '../..');
/** The week Europe moves its clocks forward (Sunday 2026-03-29): a plan shows the shift. */
const clock = new ManualClock(Date.parse('2026-03-27T00:00:00Z'));
let deployed: string;
let changed: string;
let platform: LocalPlatform;
const logs: string[] = [];

/** A functions folder (inside the project, so imports resolve) with one task declaring `schedules`. */
function functionsDir(schedules: string): string {
  const dir = mkdtempSync(join(ROOT, '.cache', 'plan-'));
  writeTask(dir, schedules);
  return dir;
}

function writeTask(dir: string, schedules: string): void {
  writeFileSync(
    join(dir, 'report.ts'),
    `import { defineTask } from ${JSON.stringify(join(ROOT, 'lib/runtime/sdk'))};
export default defineTask({ handler: () => undefined, schedules: ${schedules} });
`,
  );
}

const DEPLOYED = `[
  { id: 'morning', trigger: '0 9 * * *', timezone: 'Europe/Berlin', payload: { team: 'ops' } },
  { id: 'hourly', trigger: { type: 'interval', hours: 1 } },
  { id: 'old-report', trigger: '0 18 * * FRI' },
]`;
const CHANGED = `[
  { id: 'morning', trigger: '0 9 * * *', timezone: 'America/New_York', payload: { team: 'ops' } },
  { id: 'hourly', trigger: { type: 'interval', hours: 1 } },
  { id: 'new-report', trigger: '0 7 * * MON', description: 'weekly' },
]`;

const plan = (dir: string, ...flags: string[]) =>
  sundial(['schedules', 'plan', '--functions', relative(ROOT, dir), '--local', ...flags], {
    env: { SUNDIAL_PORT: new URL(platform.url).port },
    clock,
    cwd: ROOT,
  });

beforeAll(async () => {
  mkdirSync(join(ROOT, '.cache'), { recursive: true });
  deployed = functionsDir(DEPLOYED);
  changed = functionsDir(CHANGED);
  platform = await startLocalPlatform({ port: 0, functionsDir: deployed, log: (line) => logs.push(line) });
  await platform.invokeAdmin({ action: 'pause_schedule', id: 'hourly' });
});

afterAll(async () => {
  await platform?.stop();
  for (const dir of [deployed, changed]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('sundial schedules plan', () => {
  it('lists what a deploy would create, update and remove, field by field, with fire times before and after, and the drift', async () => {
    const { code, stdout, stderr } = await plan(changed);

    expect(stderr).toBe('');
    expect(code).toBe(0);
    const file = `${relative(ROOT, changed)}/report.ts`;
    expect(
      stdout
        .replace(/127\.0\.0\.1:\d+/, '127.0.0.1:PORT')
        .replace(/last changed [^:]+:\d\d:\d\d[.\dZ]*/, 'last changed T'),
    ).toBe(
      `Schedules declared in ${relative(ROOT, changed)}/, against the local platform at http://127.0.0.1:PORT: 1 to create, 1 to update, 1 to remove, 1 unchanged

+ create new-report (${file})
    task         report
    trigger      cron 0 7 * * MON (UTC)
    payload      {}
    description  "weekly"
    next fires   Mon 2026-03-30 07:00:00 UTC, Mon 2026-04-06 07:00:00 UTC, Mon 2026-04-13 07:00:00 UTC

~ update morning (${file})
    trigger      cron 0 9 * * * (Europe/Berlin) → cron 0 9 * * * (America/New_York)
    next fires before  Fri 2026-03-27 09:00:00 CET, Sat 2026-03-28 09:00:00 CET, Sun 2026-03-29 09:00:00 CEST
    next fires after   Fri 2026-03-27 09:00:00 EDT, Sat 2026-03-28 09:00:00 EDT, Sun 2026-03-29 09:00:00 EDT

- remove old-report (${relative(ROOT, deployed)}/report.ts, task report)
    next fires   Fri 2026-03-27 18:00:00 UTC, Fri 2026-04-03 18:00:00 UTC, Fri 2026-04-10 18:00:00 UTC

Drift (not made by a deploy):
  hourly  paused through the admin API, last changed T: a deploy keeps it
`,
    );
  });

  it('prints the plan as JSON for CI', async () => {
    const { code, stdout } = await plan(changed, '--json');

    expect(code).toBe(0);
    const report = JSON.parse(stdout) as PlanReport;
    expect(report.refused).toBeNull();
    expect(report.plan).toMatchObject({
      create: [{ id: 'new-report' }],
      update: [{ id: 'morning', changes: [{ field: 'trigger' }] }],
      remove: [{ id: 'old-report' }],
      unchanged: ['hourly'],
      drift: [{ id: 'hourly', kind: 'paused' }],
    });
  });

  it('shows nothing to change once npm start has reconciled the change, and the pause still', async () => {
    const seen = logs.length;
    writeTask(deployed, CHANGED);
    await waitFor(
      async () => logs.slice(seen).some((line) => line.startsWith('schedules from code:')),
      (done) => done,
      20_000,
    );

    const { stdout } = await plan(deployed, '--json');

    expect(JSON.parse(stdout)).toMatchObject({
      plan: { create: [], update: [], remove: [], unchanged: ['hourly', 'morning', 'new-report'] },
      refused: null,
    });
    expect((JSON.parse(stdout) as PlanReport).plan.drift).toMatchObject([{ id: 'hourly', kind: 'paused' }]);
  });

  it('reads a synthesized template too, and says when its deploy would be refused by the removal guard', async () => {
    const stored = await platform.invokeAdmin({ action: 'get_schedule', id: 'hourly' });
    const { schedule } = (stored as { result: { schedule: Record<string, unknown> } }).result;
    const template = join(deployed, 'Shop.template.json');
    const declaredHourly = {
      id: 'hourly',
      declaredIn: 'the CDK app (Sundial schedules prop)',
      fields: { ...declaredFieldsOf(schedule), description: 'from the app' },
    };
    writeFileSync(
      template,
      JSON.stringify({
        Resources: {
          SundialCodeSchedules2A3F9B1C: {
            Type: 'Custom::SundialSchedules',
            Properties: {
              Schedules: JSON.stringify([declaredHourly]),
              MaxRemovalPercent: '50',
              OnDelete: 'remove',
            },
          },
        },
      }),
    );

    const { code, stdout } = await sundial(
      ['schedules', 'plan', '--template', relative(ROOT, template), '--local', '--json'],
      { env: { SUNDIAL_PORT: new URL(platform.url).port }, clock, cwd: ROOT },
    );

    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      plan: {
        update: [{ id: 'hourly', changes: [{ field: 'description', after: 'from the app' }] }],
        remove: [{ id: 'morning' }, { id: 'new-report' }],
      },
      refused: expect.stringMatching(/^this deploy would remove 2 of the 3 schedules declared in code/),
      notCompared: [],
    });
  });

  it('names the schedule and field of a bad declaration, and exits 1', async () => {
    const bad = functionsDir(`[{ id: 'broken', trigger: '0 9 * * *', timezone: 'Mars/Olympus' }]`);

    const { code, stderr } = await plan(bad);
    rmSync(bad, { recursive: true, force: true });

    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^error: the schedules declared in code are not valid:\n {2}schedule 'broken' \(.*report\.ts\): timezone: unknown time zone 'Mars\/Olympus'/,
    );
  });
});

/** The fields a declaration sets, from a stored schedule as the admin API answers it. */
function declaredFieldsOf(schedule: Record<string, unknown>): DeclaredFields {
  return storedFields(schedule as unknown as WireSchedule);
}
