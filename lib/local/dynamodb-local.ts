/**
 * DynamoDB Local (Amazon's jar) for tests, benchmarks and the local platform, listening on 127.0.0.1
 * only (see dynamodb-local-launcher.ts).
 *
 * The jar comes from the npm package `amplify-dynamodb-simulator` (fetched with `npm pack`, never installed):
 * only its `emulator/` folder is kept, in `<repo>/.cache/dynamodb-local/`.
 *
 * @example
 * const dynamo = await startDynamoDbLocal();
 * // new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS })
 * await dynamo.stop();
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { LAUNCHER_MAIN_CLASS, loopbackLauncherXml } from './dynamodb-local-launcher';

const execFileAsync = promisify(execFile);

export const DYNAMODB_LOCAL_PACKAGE = 'amplify-dynamodb-simulator@2.9.30';
/** The repository root (this file lives in `<root>/lib/local/`). */
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DYNAMODB_LOCAL_DIR = join(REPO_ROOT, '.cache', 'dynamodb-local');
const JAR_NAME = 'DynamoDBLocal.jar';

/** Dummy credentials: DynamoDB Local accepts any, and `-sharedDb` makes them all see one database. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;
export const LOCAL_REGION = 'us-east-1';

export interface StartDynamoDbLocalOptions {
  /** TCP port; a free one is picked when absent. */
  port?: number;
  /** Keep the data in this folder (`-dbPath`) instead of in memory. */
  dataDir?: string;
  /** How long to wait for the first answer. @default 30_000 */
  startTimeoutMs?: number;
  /**
   * Let it ignore SIGINT. A terminal sends Ctrl-C to every process of its foreground group: the local
   * platform stops DynamoDB Local itself, last, once nothing writes any more. It still ends with its
   * group on any other signal (the terminal closing, a kill of the group).
   * @default false (Ctrl-C stops it at once)
   */
  ignoreCtrlC?: boolean;
}

export interface DynamoDbLocal {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  port: number;
  /** SIGTERM, then SIGKILL after 3 s. Safe to call twice. */
  stop(): Promise<void>;
}

/** Makes sure the jar is in the cache and returns the folder holding it. Safe to call from concurrent processes. */
export async function ensureDynamoDbLocalJar(): Promise<string> {
  if (existsSync(join(DYNAMODB_LOCAL_DIR, JAR_NAME))) return DYNAMODB_LOCAL_DIR;
  await mkdir(dirname(DYNAMODB_LOCAL_DIR), { recursive: true });
  const staging = await mkdtemp(join(tmpdir(), 'sundial-dynamodb-local-'));
  try {
    const { stdout } = await execFileAsync('npm', ['pack', DYNAMODB_LOCAL_PACKAGE, '--silent'], {
      cwd: staging,
      maxBuffer: 16 * 1024 * 1024,
    });
    const tarball = stdout.trim().split('\n').pop() ?? '';
    await execFileAsync('tar', ['-xzf', tarball, 'package/emulator'], { cwd: staging });
    const extracted = join(staging, 'package', 'emulator');
    if (!existsSync(join(extracted, JAR_NAME))) {
      throw new Error(`${DYNAMODB_LOCAL_PACKAGE} did not contain emulator/${JAR_NAME}`);
    }
    // Stage next to the destination so the final rename is atomic (same file system).
    const sibling = `${DYNAMODB_LOCAL_DIR}.${process.pid}.${Date.now()}`;
    await cp(extracted, sibling, { recursive: true });
    try {
      await rename(sibling, DYNAMODB_LOCAL_DIR);
    } catch (error) {
      await rm(sibling, { recursive: true, force: true });
      // Another process won the race: its copy is complete, since it was renamed into place whole.
      if (!existsSync(join(DYNAMODB_LOCAL_DIR, JAR_NAME))) throw error;
    }
    return DYNAMODB_LOCAL_DIR;
  } catch (error) {
    throw new Error(
      `Could not fetch DynamoDB Local (${DYNAMODB_LOCAL_PACKAGE}) into ${DYNAMODB_LOCAL_DIR}: ${(error as Error).message}`,
      { cause: error },
    );
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Starts DynamoDB Local on 127.0.0.1 only and resolves once it answers `ListTables`. */
export async function startDynamoDbLocal(options: StartDynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  const folder = await ensureDynamoDbLocalJar();
  const port = options.port ?? (await freePort());
  const storage = options.dataDir ? ['-dbPath', resolve(options.dataDir)] : ['-inMemory'];
  if (options.dataDir) await mkdir(resolve(options.dataDir), { recursive: true });
  const launcherDir = await mkdtemp(join(tmpdir(), 'sundial-dynamodb-launcher-'));
  const launcher = join(launcherDir, 'loopback.xml');
  const args = [...storage, '-sharedDb', '-port', String(port), '-disableTelemetry'];
  await writeFile(launcher, loopbackLauncherXml(args));
  const javaOptions = ['-Djava.library.path=./DynamoDBLocal_lib', '-Djava.net.preferIPv4Stack=true'];
  const java = ['java', ...javaOptions, '-cp', JAR_NAME, LAUNCHER_MAIN_CLASS, launcher];
  // A signal ignored when a program starts stays ignored across exec, and the JVM then installs no
  // shutdown handler for it.
  const command = options.ignoreCtrlC ? ['sh', '-c', 'trap "" INT; exec "$0" "$@"', ...java] : java;
  const child = spawn(command[0] as string, command.slice(1), {
    cwd: folder,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = captureTail(child);
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = stopper(child);
  try {
    await waitUntilAnswering(endpoint, child, options.startTimeoutMs ?? 30_000);
  } catch (error) {
    await stop();
    throw new Error(
      `DynamoDB Local did not start on port ${port}: ${(error as Error).message}\n${output()}`,
      {
        cause: error,
      },
    );
  } finally {
    await rm(launcherDir, { recursive: true, force: true });
  }
  return { endpoint, port, stop };
}

/** Stops a child process: SIGTERM, then SIGKILL after 3 s; it is killed when this process exits. */
export function stopper(child: ChildProcess): () => Promise<void> {
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let stopped: Promise<void> | undefined;
  return () => {
    stopped ??= new Promise<void>((done) => {
      process.removeListener('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return done();
      const escalate = setTimeout(() => child.kill('SIGKILL'), 3_000);
      child.once('exit', () => {
        clearTimeout(escalate);
        done();
      });
      child.kill('SIGTERM');
    });
    return stopped;
  };
}

function captureTail(child: ChildProcess): () => string {
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let spawnError: Error | undefined;
  child.on('error', (error) => {
    spawnError = error;
  });
  return () => {
    const missingJava =
      spawnError && (spawnError as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'Java was not found on PATH: install a JRE 17+ (e.g. apt-get install openjdk-17-jre-headless).\n'
        : '';
    return `${missingJava}--- java output (tail) ---\n${tail || '(none)'}`;
  };
}

async function waitUntilAnswering(endpoint: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  child.once('error', () => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited) throw new Error(`java exited with code ${child.exitCode ?? child.signalCode}`);
    if (await answersListTables(endpoint)) return;
    await new Promise((done) => setTimeout(done, 150));
  }
  throw new Error(`no answer to ListTables within ${timeoutMs} ms`);
}

async function answersListTables(endpoint: string): Promise<boolean> {
  try {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.ListTables',
        authorization:
          'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
      },
      body: '{}',
      signal: AbortSignal.timeout(1_000),
    });
    return response.ok;
  } catch {
    return false;
  }
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.unref();
    server.on('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

/** `tsx lib/local/dynamodb-local.ts`: fetch the jar (if needed) and print where it is. */
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  ensureDynamoDbLocalJar()
    .then(async (folder) =>
      console.log(`DynamoDB Local jar in ${folder}: ${(await readdir(folder)).join(', ')}`),
    )
    .catch((error: unknown) => {
      console.error((error as Error).message);
      process.exitCode = 1;
    });
}
