import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockDataDir } from '../../lib/local/data-dir-lock';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sundial-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the data directory lock of the local platform', () => {
  it('lets one platform at a time use a data directory, naming the holder to the second', async () => {
    const release = await lockDataDir(dir);

    const second = await lockDataDir(dir).catch((error: Error) => error.message);
    await release();
    const afterRelease = await lockDataDir(dir);

    expect(second).toBe(
      `the data directory ${dir} is in use by another local platform (pid ${process.pid}); stop it, or start this one with another --data-dir`,
    );
    expect(readFileSync(join(dir, 'sundial.lock'), 'utf8')).toBe(`${process.pid}\n`);
    await afterRelease();
  });

  it('takes over the lock of a platform that was killed', async () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(join(dir, 'sundial.lock'), `${gone}\n`);

    const release = await lockDataDir(dir);

    expect(readFileSync(join(dir, 'sundial.lock'), 'utf8')).toBe(`${process.pid}\n`);
    await release();
  });
});
