import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../lib/local/dynamodb-local';
import { running, type StartedPlatform, startPlatformProcess } from '../support/started-platform';
import { waitFor } from '../support/wait';

const ROOT = resolve(import.meta.dirname, '../..');
/** A hang guard, not a timing goal: the stop takes a few seconds. */
const STOPS_WITHIN_MS = 30_000;

const started: StartedPlatform[] = [];
const dataDirs: string[] = [];
afterEach(() => {
  for (const platform of started.splice(0)) platform.kill();
  for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function newDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sundial-ctrl-c-'));
  dataDirs.push(dir);
  return dir;
}

async function start(command: string, args: readonly string[], cwd: string, port: number) {
  const platform = await startPlatformProcess(command, args, { cwd, port });
  started.push(platform);
  return platform;
}

/** Ctrl-C as a terminal sends it; resolves with the exit code once the platform has exited. */
async function pressCtrlC(platform: StartedPlatform): Promise<number | string> {
  platform.pressCtrlC();
  const outcome = await Promise.race([
    platform.exited,
    new Promise<'still running'>((done) => setTimeout(() => done('still running'), STOPS_WITHIN_MS)),
  ]);
  return outcome;
}

const jobOf = async (platform: StartedPlatform, jobId: string) =>
  ((await platform.admin({ action: 'get_job', job_id: jobId })).result?.job ?? {}) as { status?: string };

describe('Ctrl-C in the terminal of a running local platform (SIGINT to its process group)', () => {
  it('with --data-dir, saves the waiting jobs, frees the directory and leaves nothing running; a restart runs them', async () => {
    // Prepare: `npm start -- --data-dir …` as a user runs it, and a job sent to the queue for 25 s later
    const dataDir = newDataDir();
    const port = await freePort();
    const args = ['start', '--', '--port', String(port), '--data-dir', dataDir];
    const first = await start('npm', args, ROOT, port);
    const added = await first.admin({
      action: 'add_job',
      task: 'send-report',
      job_id: 'sent-before-the-stop',
      run_at: new Date(Date.now() + 25_000).toISOString(),
      payload: { team: 'ops', recipients: ['ops@example.com'] },
    });
    const processes = first.processes();

    // Act
    const exit = await pressCtrlC(first);
    await new Promise((done) => setTimeout(done, 1_000));

    // Assess: it stopped by itself, saved the queue, released the lock, and nothing of it runs on
    expect(added).toMatchObject({ ok: true, result: { queued: 'sent' } });
    expect(exit).not.toBe('still running');
    expect(first.output()).toContain('Stopped.');
    expect(processes.length).toBeGreaterThanOrEqual(4);
    expect(processes.filter(running)).toEqual([]);
    expect(existsSync(join(dataDir, 'sundial.lock'))).toBe(false);
    expect(readFileSync(join(dataDir, 'queue.json'), 'utf8')).toContain('sent-before-the-stop');
    expect(first.output()).not.toMatch(/ error |tick failed|NodeVersionSupportWarning/);

    // Act: the next start with the same directory
    const second = await start('npm', args, ROOT, port);
    const job = await waitFor(
      () => jobOf(second, 'sent-before-the-stop'),
      (found) => found.status === 'success',
      60_000,
    );
    const secondExit = await pressCtrlC(second);

    // Assess: the job sent before the stop ran after the restart
    expect(job.status).toBe('success');
    expect(secondExit).not.toBe('still running');
    expect(second.output()).toContain('Stopped.');
  });

  it('stops within a few seconds while handlers ignore their signal, one of them in a busy loop', async () => {
    // Prepare: what `npm start` runs, in a project whose functions/ never end
    const dataDir = newDataDir();
    const port = await freePort();
    const cwd = resolve(import.meta.dirname, 'fixtures/stubborn');
    const main = join(ROOT, 'lib/local/main.ts');
    const args = ['--import', 'tsx', main, '--port', String(port), '--data-dir', dataDir];
    const platform = await start(process.execPath, args, cwd, port);
    await platform.admin({ action: 'add_job', task: 'spins', job_id: 'spinning' });
    await platform.admin({ action: 'add_job', task: 'hangs', job_id: 'hanging' });
    const jobs = await waitFor(
      () => Promise.all([jobOf(platform, 'spinning'), jobOf(platform, 'hanging')]),
      (found) => found.every((job) => job.status === 'running'),
    );
    await new Promise((done) => setTimeout(done, 1_500)); // past their 1 s timeout: both ignore it
    const processes = platform.processes();

    // Act
    const exit = await pressCtrlC(platform);
    await new Promise((done) => setTimeout(done, 1_000));

    // Assess: the platform stopped by itself and saved what --data-dir keeps
    expect(jobs.map((job) => job.status)).toEqual(['running', 'running']);
    expect(exit).toBe(0);
    expect(platform.output()).toContain('Stopped.');
    expect(processes.filter(running)).toEqual([]);
    expect(existsSync(join(dataDir, 'sundial.lock'))).toBe(false);
    expect(existsSync(join(dataDir, 'queue.json'))).toBe(true);
    expect(platform.output()).not.toMatch(/tick failed|NodeVersionSupportWarning/);
  });
});
