import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { freePort } from '../../lib/local/dynamodb-local';

const ROOT = resolve(import.meta.dirname, '../..');

function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((child) => {
      try {
        return Number(readFileSync(`/proc/${child}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]) === pid;
      } catch {
        return false;
      }
    });
}
const commOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
};
/** Running (a zombie waiting for its reaper has exited). */
const alive = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
};

it.each(['SIGTERM', 'SIGINT'] as const)(
  '%s while npm start is starting ends it and leaves no DynamoDB Local behind',
  async (signal) => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'sundial-signal-'));
    // what `npm start` runs (node --import tsx lib/local/main.ts)
    const main = spawn(
      process.execPath,
      ['--import', 'tsx', 'lib/local/main.ts', '--port', String(port), '--data-dir', dataDir],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let java: number | undefined;
    try {
      const deadline = Date.now() + 30_000;
      while (java === undefined && Date.now() < deadline) {
        java = childrenOf(main.pid as number).find((pid) => commOf(pid) === 'java');
        await new Promise((done) => setTimeout(done, 50));
      }
      expect(java).toBeDefined();
      const exited = new Promise((done) => main.once('exit', done));
      main.kill(signal); // still starting: DynamoDB Local takes a few seconds
      const code = await exited;
      expect(code).toBe(signal === 'SIGINT' ? 130 : 143);
      await new Promise((done) => setTimeout(done, 4_000)); // more than the stopper's SIGTERM→SIGKILL grace
      expect(alive(java as number), `java ${java} still running after npm start got ${signal}`).toBe(false);
    } finally {
      if (java !== undefined && alive(java)) process.kill(java, 'SIGKILL');
      if (main.exitCode === null) main.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);
