import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireJob } from '../../lib/cli/admin/wire';
import { waitFor } from '../support/wait';
import { type DocRunner, startDocRunner } from './support/doc-runner';
import { fencedBlocks } from './support/markdown';
import { runPage } from './support/run-page';

/**
 * docs/cli.md runs against the real local platform with the tasks in `functions/`, its clock at the
 * walkthrough's date: every transcript prints what the page shows (times of the run, durations, ids
 * and cursors aside), every other command exits 0. The page's walkthrough, then each command's section,
 * run in the page's order, as a reader would type them.
 */

const page = readFileSync(resolve(import.meta.dirname, '../../docs/cli.md'), 'utf8');

const NOT_RUN = {
  'npx sundial <command> [options]      npx sundial <command> --help      npx sundial <command> <subcommand> --help':
    'the shape of every command',
  'npm start': 'this test starts the same platform itself',
  "aws scheduler list-schedules --query 'Schedules[].[GroupName,Name]' --output text |":
    'reads EventBridge Scheduler in an AWS account (eventbridge.json below is its output)',
  '$ npx sundial schedules plan':
    'a plan of another functions folder against its stored schedules: test/cli/schedules-plan.int.test.ts produces this output',
  'npx sundial dashboard --stack Sundial --profile prod --region eu-west-1 --port 8080':
    'serves a deployed stack, with an AWS profile of its account',
};

let runner: DocRunner;

beforeAll(async () => {
  runner = await startDocRunner({ anchor: '2026-11-22T01:05:10Z', shownPort: 4799 });
});

afterAll(async () => {
  await runner?.stop();
});

async function jobsOf(filter: Record<string, unknown>): Promise<WireJob[]> {
  const answer = (await runner.platform.invokeAdmin({ action: 'list_jobs', limit: 10, ...filter })) as {
    result?: { jobs: WireJob[] };
  };
  return answer.result?.jobs ?? [];
}

/**
 * The schedule's latest `count` fires have run and none is due: the page lists them between two fires
 * (every 5 s), as a reader does, not in the few ms a fire waits for its worker.
 */
async function betweenFires(scheduleId: string, count: number): Promise<void> {
  await waitFor(
    async () => {
      const jobs = await jobsOf({ schedule_id: scheduleId });
      const latest = Date.parse(jobs[0]?.fire_time ?? '') || 0;
      const sinceFire = runner.clock.now() - latest;
      const done = jobs.slice(0, count).filter((job) => job.status === 'success').length;
      // Early in the interval (every 5 s): the listing's CLI process must start and answer before the next fire shows.
      return done === count && sinceFire >= 500 && sinceFire <= 2_000;
    },
    (ready) => ready,
    30_000,
  );
}

/** The jobs of slow-task have ended (so a listing or count shows how). */
async function ended(...jobIds: string[]): Promise<void> {
  await waitFor(
    async () => (await jobsOf({ task: 'slow-task' })).filter((job) => jobIds.includes(job.id)),
    (jobs) => jobs.length === jobIds.length && jobs.every((job) => job.finished_at !== null),
  );
}

/**
 * The platform's clock has reached `instant`, when the page made the call: how many fires a call
 * dispatches ahead depends on it (up to the end of the 2-minute note chunk its reading reaches). The
 * clock starts early enough for the platform's start to fit before the first such call.
 */
async function clockAt(instant: string): Promise<void> {
  const at = Date.parse(instant);
  await waitFor(
    async () => runner.clock.now(),
    (now) => now >= at,
    15_000,
  );
}

describe('docs/cli.md, run against the local platform', () => {
  it('shows what every command really prints', async () => {
    const problems = await runPage(runner, fencedBlocks(page), {
      notRun: NOT_RUN,
      before: {
        'npx sundial schedules add --id hello --task send-report --every 5s --payload \'{"team":"ops","recipients":["ops@example.com"]}\'':
          () => clockAt('2026-11-22T01:05:25.300Z'),
        'npx sundial jobs list --schedule hello --limit 3': () => betweenFires('hello', 3),
        'npx sundial jobs list --status error --since 24h': () => ended('doomed'),
        'npx sundial jobs count --task slow-task': () => ended('slow-1', 'doomed'),
      },
      snapshots: ['npx sundial jobs list --schedule hello --limit 3'],
    });

    expect(problems).toEqual([]);
  }, 120_000);
});
