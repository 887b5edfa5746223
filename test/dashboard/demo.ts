import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { type CliPlatform, startCliPlatform } from '../cli/support';
import { type HeadlessChromium, launchChromium } from './browser';

/** The local platform with the dashboard's demo schedules, open in headless Chromium. */
export interface DashboardDemo {
  sundial: CliPlatform;
  chromium: HeadlessChromium;
  page: Page;
  stop(): Promise<void>;
}

/** Schedules added through the CLI, as a user would: id → the options of `sundial schedules add`. */
const SCHEDULES: Record<string, Record<string, string>> = {
  'nightly-report': {
    task: 'report',
    cron: '0 9 * * MON-FRI',
    timezone: 'Europe/Berlin',
    payload: '{"team":"ops"}',
    description: 'Weekday report for ops',
    metadata: 'team=ops',
  },
  heartbeat: { task: 'echo', every: '5s' },
  'quarter-hourly': { task: 'echo', cron: '*/15 * * * *', timezone: 'America/New_York' },
  'failing-export': { task: 'explode', every: '20s', metadata: 'owner=billing' },
};

const addArgs = (id: string, options: Record<string, string>) => [
  'schedules',
  'add',
  '--id',
  id,
  ...Object.entries(options).flatMap(([name, value]) => [`--${name}`, value]),
];

export async function startDashboardDemo(): Promise<DashboardDemo> {
  const chromium = await launchChromium();
  let sundial: CliPlatform | undefined;
  try {
    sundial = await startCliPlatform(resolve(import.meta.dirname, 'fixtures/functions'));
    for (const [id, options] of Object.entries(SCHEDULES)) await sundial.json(addArgs(id, options));
    const page = await chromium.context.newPage();
    await page.goto(`${sundial.platform.url}/`);
    const started = sundial;
    return {
      sundial: started,
      chromium,
      page,
      async stop() {
        await chromium.close();
        await started.stop();
      },
    };
  } catch (error) {
    await chromium.close();
    await sundial?.stop();
    throw error;
  }
}
