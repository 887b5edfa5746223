import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireJob, WireSchedule, WireTask } from '../../lib/cli/admin/wire';
import { run } from '../../lib/cli/main';
import { systemClock } from '../../lib/core/clock';
import { type CliPlatform, waitFor } from '../cli/support';
import { type DashboardDemo, startDashboardDemo } from './demo';
import { layoutProblems } from './layout-check';

let demo: DashboardDemo;
let sundial: CliPlatform;
let page: Page;

beforeAll(async () => {
  demo = await startDashboardDemo();
  ({ sundial, page } = demo);
}, 120_000);

afterAll(async () => {
  await demo?.stop();
});

/** The accessible name of the focused element (evaluated in the page). */
const FOCUSED_NAME =
  "document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? ''";

/** The rendered text of what `locator` matches (as the user sees it, cells separated by tabs). */
const text = async (locator: Locator) => (await locator.allInnerTexts()).join('\n');

const row = (id: string) => page.locator(`#schedule-rows tr[data-id="${id}"]`);

/**
 * What the page shows once it settles: a click's admin call and the page's refresh take a few store
 * calls, which on a busy two-core machine outlast `expect.poll`'s default second.
 */
const shown = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 10_000 });

describe('the dashboard in headless Chromium', () => {
  it('shows a schedule added through the CLI, with its next fire time in its own zone', async () => {
    await row('nightly-report').waitFor();
    await shown(() => text(row('nightly-report'))).toMatch(/report\s+cron 0 9 \* \* MON-FRI/);
    expect(await text(row('nightly-report'))).toMatch(/\w{3} \d{4}-\d\d-\d\d 09:00:00 CES?T\s+in /);
    // a fire already dispatched (the tick sends 90 s ahead) is still the next fire shown
    await shown(() => text(row('heartbeat'))).toMatch(/ UTC\s+(in [0-5] s|now)/);
    expect(await text(row('quarter-hourly'))).toMatch(/:(00|15|30|45):00 E[SD]T\s+in /);
    expect(await page.title()).toBe('Sundial dashboard');
    // what a schedule is for, under its id
    expect(await text(row('nightly-report').locator('th .about'))).toBe('Weekday report for ops · team=ops');
    expect(await row('heartbeat').locator('th .about').isVisible()).toBe(false);
  });

  it('shows a schedule with an EventBridge Scheduler expression readably, fired at its times', async () => {
    const added = await sundial.cli([
      'schedules',
      'add',
      '--id',
      'from-eventbridge',
      '--task',
      'echo',
      '--schedule-expression',
      'cron(0 10 ? * MON-FRI *)',
      '--timezone',
      'Europe/Berlin',
    ]);
    expect(added.code, added.stderr).toBe(0);
    // The page refreshes on its own every few seconds: wait for it to list the new schedule.
    await expect
      .poll(() => text(row('from-eventbridge')), { timeout: 20_000 })
      .toMatch(/echo\s+eventbridge cron\(0 10 \? \* MON-FRI \*\)/);
    expect(await text(row('from-eventbridge'))).toMatch(
      /(Mon|Tue|Wed|Thu|Fri) \d{4}-\d\d-\d\d 10:00:00 CES?T\s+in /,
    );
  });

  it('pauses a schedule with a click, which the CLI then shows as paused', async () => {
    // Act
    await page.getByRole('button', { name: 'Pause nightly-report' }).click();

    // Assess
    await shown(() => text(row('nightly-report').locator('.badge'))).toBe('paused');
    await shown(() => text(page.locator('#action-status'))).toBe('Paused nightly-report');
    const { schedule } = await sundial.json<{ schedule: WireSchedule }>([
      'schedules',
      'get',
      'nightly-report',
    ]);
    expect(schedule.paused).toBe(true);
    expect(await page.getByRole('button', { name: 'Resume nightly-report' }).count()).toBe(1);
  });

  it('pauses and resumes a task with a click, which the CLI shows', async () => {
    // Act
    await page.getByRole('button', { name: 'Pause task report' }).click();
    await shown(() => text(page.locator('#action-status'))).toBe('Paused task report');
    await shown(() => text(page.locator('#task-rows'))).toMatch(
      /report\s+0 \/ 2\s+none\s+0 \(paused\)\s*Resume/,
    );
    const paused = await sundial.json<{ tasks: WireTask[] }>(['tasks', 'list']);
    await page.getByRole('button', { name: 'Resume task report' }).click();
    await shown(() => text(page.locator('#action-status'))).toBe('Resumed task report');
    const resumed = await sundial.json<{ tasks: WireTask[] }>(['tasks', 'list']);

    // Assess
    expect(paused.tasks.find((task) => task.id === 'report')?.paused).toBe(true);
    expect(resumed.tasks.find((task) => task.id === 'report')?.paused).toBe(false);
  });

  it('reaches the action buttons with the keyboard, shows the focus, and runs a schedule with Enter', async () => {
    // Act: from the top of a freshly loaded page, tab to the first "Run … now" button
    await page.reload();
    await row('failing-export').waitFor();
    const visited: string[] = [];
    for (let step = 0; step < 25 && !visited.some((name) => name.startsWith('Run ')); step++) {
      await page.keyboard.press('Tab');
      visited.push(String(await page.evaluate(FOCUSED_NAME)));
    }
    const outline = await page.evaluate('getComputedStyle(document.activeElement).outlineStyle');
    const focused = visited.at(-1) ?? '';
    await page.keyboard.press('Enter');

    // Assess
    expect(visited.slice(0, 2)).toEqual(['Skip to schedules', 'Pause live updates']);
    expect(visited).toContain('Pause failing-export');
    expect(focused).toBe('Run failing-export now');
    expect(outline).toBe('solid');
    await shown(() => text(page.locator('#action-status'))).toBe('Queued a run of failing-export');
    const jobs = await sundial.json<{ jobs: WireJob[] }>(['jobs', 'list', '--schedule', 'failing-export']);
    expect(jobs.jobs.some((job) => job.origin === 'run_now')).toBe(true);
  });

  it('lists results with expandable errors, running jobs per task, fire lag and upcoming fires', async () => {
    await expect
      .poll(() => page.locator('#result-list details').count(), { timeout: 30_000 })
      .toBeGreaterThan(0);
    // the newest failure, pinned by its job id: newer results move it down while the page updates
    const failedJobId = await text(
      page
        .locator('#result-list li', { has: page.locator('details') })
        .first()
        .locator('.id'),
    );
    const error = page.locator('#result-list li', { hasText: failedJobId }).locator('details');
    await error.locator('summary').click();
    await shown(() => error.getAttribute('open')).toBe('');
    // a job's metadata (here its schedule's) is shown with its task and schedule
    expect(await text(page.locator('#result-list li', { hasText: failedJobId }))).toContain(
      'explode · failing-export · owner=billing',
    );
    expect(await text(error.locator('pre'))).toContain(
      'NonRetryableError: the report service refused the request',
    );
    expect(await text(page.locator('#task-rows'))).toMatch(/report\s+0 \/ 2/);
    await expect
      .poll(() => text(page.locator('#lag-summary')), { timeout: 20_000 })
      .toMatch(/^\d+ recent scheduled jobs: p50 /);
    expect(await text(page.locator('#upcoming-list'))).toMatch(/heartbeat: \d\d:\d\d:\d\d UTC \(in \d+ s\)/);
    expect(await page.locator('#timeline .timeline-marker').count()).toBeGreaterThan(0);
  });

  it('refuses an admin request from another origin', async () => {
    const response = await fetch(`${sundial.platform.url}/api/admin`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-sundial-dashboard': '1',
        origin: 'https://evil.example',
      },
      body: JSON.stringify({ action: 'pause_schedule', id: 'heartbeat' }),
    });
    expect(response.status).toBe(403);
    const { schedule } = await sundial.json<{ schedule: WireSchedule }>(['schedules', 'get', 'heartbeat']);
    expect(schedule.paused).toBe(false);
  });

  it('is served by `sundial dashboard` too, until stopped', async () => {
    const shutdown = new AbortController();
    let stdout = '';
    const running = run(['dashboard', '--port', '0', '--local'], {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: () => true },
      clock: systemClock,
      env: { SUNDIAL_PORT: sundial.port },
      shutdown: shutdown.signal,
    });
    const url = await waitFor(
      async () => /http:\/\/127\.0\.0\.1:\d+\//.exec(stdout)?.[0],
      (found) => found !== undefined,
    );
    const page = await fetch(url ?? '');
    shutdown.abort();
    expect(stdout).toMatch(
      /^Sundial dashboard for the local platform at http:\/\/127\.0\.0\.1:\d+: http:\/\/127\.0\.0\.1:\d+\/\n/,
    );
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>Sundial dashboard</title>');
    expect(await running).toBe(0);
  });
});

describe('the dashboard layout', () => {
  it('holds at 1280 and 1920 px wide with long ids, names and payloads: nothing leaves its panel, no button is covered', async () => {
    // Prepare: schedules with the CLI's default ids (UUIDs), a long task id, description, metadata and
    // trigger, and failures whose message names a long URL from the payload
    const ledgerUrl =
      'https://ledger.internal.example.com/api/v2/tenants/0f3c2a9e-4b7d-4f1a-9c8e-2d6b5a4e3f21/invoice-batches';
    const schedules = [
      [
        '--task',
        'sync-customer-invoices-to-ledger',
        '--every',
        '3s',
        '--payload',
        JSON.stringify({ ledgerUrl, batch: 'invoices-2026-11-22T01:05:00Z-0000000000000001' }),
        '--description',
        'Pushes the invoices of every customer of the EMEA region to the ledger, in batches of 500',
        '--metadata',
        `ledger=${ledgerUrl}`,
      ],
      [
        '--task',
        'report',
        '--cron',
        '0,5,10,15,20,25,30,35,40,45,50,55 6-22 * * MON-FRI',
        '--timezone',
        'America/Argentina/Buenos_Aires',
        '--payload',
        JSON.stringify({ team: 'customer-success-and-onboarding-latin-america' }),
      ],
    ];
    const ids: string[] = [];
    for (const options of schedules) {
      ids.push(
        (await sundial.json<{ schedule: WireSchedule }>(['schedules', 'add', ...options])).schedule.id,
      );
    }
    for (const id of ids) await row(id).waitFor({ timeout: 20_000 });
    await page
      .locator('#result-list li', { hasText: 'sync-customer-invoices-to-ledger' })
      .first()
      .waitFor({ timeout: 30_000 });
    await page
      .locator('#result-list li', { hasText: 'sync-customer-invoices-to-ledger' })
      .first()
      .locator('summary')
      .click();

    // Act
    const problems: Record<number, string[]> = {};
    for (const width of [1280, 1920]) {
      await page.setViewportSize({ width, height: 900 });
      problems[width] = await layoutProblems(page);
    }

    // Assess
    expect(ids.every((id) => /^[0-9a-f-]{36}$/.test(id))).toBe(true);
    expect(problems).toEqual({ 1280: [], 1920: [] });
  });
});
