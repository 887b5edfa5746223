import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const LOCK_FILE = 'sundial.lock';

/**
 * Takes the data directory for this process (a lock file holding its pid) and returns its release. Two
 * local platforms on one directory would share DynamoDB Local's files and each overwrite the other's
 * queue snapshot when stopping, losing the jobs that were waiting; a lock left by a process that is
 * gone (killed) is taken over.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const file = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, `${process.pid}\n`, { flag: 'wx' });
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10);
      if (Number.isSafeInteger(holder) && holder > 0 && isRunning(holder)) {
        throw new Error(
          `the data directory ${dataDir} is in use by another local platform (pid ${holder}); stop it, or start this one with another --data-dir`,
        );
      }
      await rm(file, { force: true });
    }
  }
  throw new Error(`could not lock the data directory ${dataDir}: its lock file keeps coming back`);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
