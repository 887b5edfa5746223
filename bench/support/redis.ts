import { spawn, spawnSync } from 'node:child_process';
import { freePort, stopper } from '../../lib/local/dynamodb-local';

/** A redis-server of this run: on 127.0.0.1 only, no persistence. */
export interface BenchRedis {
  port: number;
  stop(): Promise<void>;
}

/** Whether `redis-server` is on PATH (CI machines do not have it). */
export function redisServerInstalled(): boolean {
  return !spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).error;
}

/** Starts redis-server on a free port of 127.0.0.1, without snapshots or an append-only file. */
export async function startBenchRedis(timeoutMs = 10_000): Promise<BenchRedis> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--protected-mode',
      'yes',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const stop = stopper(child);
  let output = '';
  const ready = new Promise<void>((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`no "Ready to accept connections" within ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4_000);
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        done();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`redis-server exited with code ${code}`));
    });
  });
  try {
    await ready;
  } catch (error) {
    await stop();
    throw new Error(`redis-server did not start on port ${port}: ${(error as Error).message}\n${output}`, {
      cause: error,
    });
  }
  return { port, stop };
}
