import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireSchedule } from '../../lib/core/admin-contract';
import { type LocalPlatform, startLocalPlatform } from '../../lib/local/platform';
import { waitFor } from '../support/wait';

const ROOT = resolve(import.meta.dirname, '../..');
let dir: string;
let platform: LocalPlatform;
const logs: string[] = [];

/** A task module declaring `schedules` (a literal of `ScheduleDeclaration`s), written where `npm start` watches. */
function writeTask(schedules: string): void {
  writeFileSync(
    join(dir, 'report.ts'),
    `import { defineTask } from ${JSON.stringify(join(ROOT, 'lib/runtime/sdk'))};
export default defineTask({ handler: () => undefined, schedules: ${schedules} });
`,
  );
}

async function schedules(): Promise<WireSchedule[]> {
  const answer = await platform.invokeAdmin({ action: 'list_schedules' });
  if (!answer.ok) throw new Error(JSON.stringify(answer.error));
  return (answer.result as { schedules: WireSchedule[] }).schedules;
}

/** Waits for the next line of the reload's reconcile. */
async function reconciled(after: number): Promise<string> {
  const line = await waitFor(
    async () => logs.slice(after).find((entry) => entry.startsWith('schedules from code:')),
    (found) => found !== undefined,
    20_000,
  );
  return line ?? '';
}

beforeAll(async () => {
  // Inside the project, so the module's imports resolve as those of functions/ do.
  mkdirSync(join(ROOT, '.cache'), { recursive: true });
  dir = mkdtempSync(join(ROOT, '.cache', 'code-schedules-'));
  writeTask(`[
    { id: 'morning', trigger: '0 9 * * *', timezone: 'Europe/Berlin', payload: { team: 'ops' } },
    { id: 'every-minute', trigger: { type: 'interval', minutes: 1 } },
  ]`);
  platform = await startLocalPlatform({ port: 0, functionsDir: dir, log: (line) => logs.push(line) });
});

afterAll(async () => {
  await platform?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('npm start reconciles the schedules declared in functions/, at start and on every reload', () => {
  it('creates them at start, changes and removes them as the code changes, and keeps a pause', async () => {
    expect(logs).toContain('schedules from code: added every-minute, morning');
    expect((await schedules()).map((schedule) => [schedule.id, schedule.managed_by?.declared_in])).toEqual([
      ['every-minute', expect.stringMatching(/report\.ts$/)],
      ['morning', expect.stringMatching(/report\.ts$/)],
    ]);
    await platform.invokeAdmin({ action: 'pause_schedule', id: 'every-minute' });

    let seen = logs.length;
    writeTask(`[
      { id: 'morning', trigger: '30 8 * * *', timezone: 'Europe/Berlin', payload: { team: 'ops' } },
      { id: 'every-minute', trigger: { type: 'interval', minutes: 1 }, description: 'still paused' },
    ]`);
    const changed = await reconciled(seen);
    const afterChange = await schedules();
    const drift = logs.slice(seen).filter((line) => line.startsWith('schedule every-minute is paused'));

    seen = logs.length;
    writeTask(
      `[{ id: 'every-minute', trigger: { type: 'interval', minutes: 1 }, description: 'still paused' }]`,
    );
    const removed = await reconciled(seen);

    expect(changed).toBe('schedules from code: updated every-minute (description), morning (trigger)');
    expect(drift).toEqual([
      expect.stringMatching(
        /^schedule every-minute is paused through the admin API \(last changed .*\): deploys keep it paused$/,
      ),
    ]);
    expect(afterChange.find((schedule) => schedule.id === 'morning')?.trigger).toEqual({
      type: 'cron',
      expression: '30 8 * * *',
      timezone: 'Europe/Berlin',
    });
    expect(afterChange.find((schedule) => schedule.id === 'every-minute')).toMatchObject({
      paused: true,
      description: 'still paused',
    });
    expect(removed).toBe('schedules from code: removed morning; 1 unchanged');
    expect((await schedules()).map((schedule) => schedule.id)).toEqual(['every-minute']);
  });
});
