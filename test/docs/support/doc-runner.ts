import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { vi } from 'vitest';
import { run } from '../../../lib/cli/main';
import type { Clock } from '../../../lib/core/clock';
import { createDashboardRoute } from '../../../lib/dashboard';
import { type LocalPlatform, startLocalPlatform } from '../../../lib/local/platform';
import { waitFor } from '../../support/wait';
import { shellWords, type Transcript } from './markdown';
import { type VolatileMask, volatileMask } from './volatile';

/** What a command printed (stdout and stderr as a terminal shows them, interleaved) and its exit code. */
export interface CommandResult {
  code: number;
  output: string;
}

/** How a page's command fared against what the page shows. */
export interface Checked {
  agrees: boolean;
  /** The output, ports as the page names them (to paste into the page when it is out of date). */
  actual: string;
}

export interface DocRunner {
  platform: LocalPlatform;
  /** The platform's clock: the page's date, moving as real time does. */
  clock: Clock;
  /** The platform's log lines, as `npm start` prints them. */
  logs: string[];
  mask: VolatileMask;
  /** The folder commands run in: files they name (`import schedules.yaml`) are written here. */
  dir: string;
  /** Runs a command line as the page shows it: `npx sundial …` in-process, `aws lambda invoke …` through the SDK. */
  run(command: string): Promise<CommandResult>;
  /**
   * Sends an admin request through the Lambda Invoke API, as `aws lambda invoke` does: ports as the
   * page shows them in the request and the answer.
   */
  admin(request: Record<string, unknown>): Promise<unknown>;
  /** Runs a transcript's command and compares its output and exit code with the page's. */
  check(transcript: Transcript): Promise<Checked>;
  /** `text` with the generated values the page showed replaced by those of this run. */
  substitute(text: string): string;
  /** Pairs the generated values (ids, cursors) of a shown output with those of the real one. */
  learn(shown: string, actual: string): void;
  /** The port the page shows for the platform's, in `text` (of this run). */
  asShown(text: string): string;
  stop(): Promise<void>;
}

export interface DocRunnerOptions {
  /** When the page's examples ran (the platform's clock starts there). */
  anchor: string;
  /** The platform's port the page shows (`SUNDIAL_PORT`). */
  shownPort: number;
}

/** The local platform's default port, which the page shows when none runs. */
const DEFAULT_PORT = 4750;
/** How a command's comment on the page says it ran: the environment it needs. */
const CONDITIONS: Readonly<Record<string, 'stopped' | 'no-aws'>> = {
  'with the platform stopped': 'stopped',
  'no platform, no AWS region configured': 'no-aws',
};

/**
 * The real local platform (DynamoDB Local, the SQS emulator, the tick, workers, the dashboard) with the
 * tasks that ship in `functions/`, its clock at the page's date, and what a page's commands need.
 */
export async function startDocRunner(options: DocRunnerOptions): Promise<DocRunner> {
  const offset = Date.parse(options.anchor) - Date.now();
  const clock: Clock = { now: () => Date.now() + offset };
  const logs: string[] = [];
  const platform = await startLocalPlatform({
    port: 0,
    functionsDir: resolve(import.meta.dirname, '../../../functions'),
    log: (line) => logs.push(line),
    env: {},
    clockOffsetMs: offset,
    routes: ({ invokeAdmin }) => [createDashboardRoute({ invokeAdmin: (request) => invokeAdmin(request) })],
  });
  const lambda = new LambdaClient({
    endpoint: platform.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const port = new URL(platform.url).port;
  const closedPort = String(await freePort());
  const mask = volatileMask(Date.parse(options.anchor));
  const dir = mkdtempSync(join(tmpdir(), 'sundial-docs-'));
  const learned = new Map<string, string>();
  const shownPorts = new Map<string, string>([
    [port, String(options.shownPort)],
    [closedPort, String(DEFAULT_PORT)],
  ]);
  const asShown = (text: string) =>
    text.replace(/127\.0\.0\.1:(\d+)/g, (whole, used: string) => {
      const shown = shownPorts.get(used);
      return shown === undefined ? whole : `127.0.0.1:${shown}`;
    });
  const substitute = (text: string) => {
    let result = text;
    for (const [shown, actual] of learned) result = result.replaceAll(shown, actual);
    return result;
  };

  async function sundial(args: readonly string[], condition: string | undefined): Promise<CommandResult> {
    let output = '';
    const write = (text: string) => {
      output += text;
      return true;
    };
    const env = { SUNDIAL_PORT: condition === undefined ? port : closedPort };
    if (condition === 'no-aws') {
      for (const name of ['AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_PROFILE']) vi.stubEnv(name, undefined);
      vi.stubEnv('AWS_CONFIG_FILE', join(dir, 'no-aws-config'));
      vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', join(dir, 'no-aws-credentials'));
    }
    try {
      if (args[0] !== 'dashboard') {
        const code = await run(args, { stdout: { write }, stderr: { write }, clock, env, cwd: dir });
        return { code, output };
      }
      // Serves until Ctrl-C: on a port of its own (the page's would be taken on a busy machine), stopped once it says so
      const shownAt = args.indexOf('--port');
      const served = shownAt < 0 ? [...args, '--port', '0'] : args.with(shownAt + 1, '0');
      const shutdown = new AbortController();
      const io = { stdout: { write }, stderr: { write }, clock, env, cwd: dir, shutdown: shutdown.signal };
      const running = run(served, io);
      await waitFor(
        async () => output,
        (text) => text.includes('Press Ctrl-C to stop.'),
      );
      const dashboardPort = /127\.0\.0\.1:(\d+)\/\n/.exec(output)?.[1];
      if (dashboardPort !== undefined)
        shownPorts.set(dashboardPort, shownAt < 0 ? '4751' : (args[shownAt + 1] ?? ''));
      shutdown.abort();
      return { code: await running, output };
    } finally {
      vi.unstubAllEnvs();
    }
  }

  async function awsLambdaInvoke(args: readonly string[]): Promise<CommandResult> {
    const flag = (name: string) => args[args.indexOf(name) + 1];
    const answer = await lambda.send(
      new InvokeCommand({
        FunctionName: (flag('--function-name') ?? '').replace('<AdminFunctionName>', 'sundial-admin'),
        Payload: Buffer.from(flag('--payload') ?? ''),
      }),
    );
    const output = Buffer.from(answer.Payload ?? []).toString();
    // The AWS CLI exits 0 whatever the function answered: the page's requests must answer ok.
    const ok = answer.FunctionError === undefined && (JSON.parse(output) as { ok?: unknown }).ok === true;
    return { code: ok ? 0 : 1, output: `${output}\n` };
  }

  async function runCommand(command: string): Promise<CommandResult> {
    // An id or cursor a command names comes from an earlier output of the page, as a reader's does
    const unknown = mask.generated(command).filter((value) => !learned.has(value));
    if (unknown.length > 0)
      throw new Error(`${command}: names ${unknown.join(', ')}, which no earlier output showed`);
    const { words, comment } = shellWords(fromShown(substitute(command)));
    const condition = comment === undefined ? undefined : CONDITIONS[comment];
    if (words[0] === 'npx' && words[1] === 'sundial') return sundial(words.slice(2), condition);
    if (words[0] === 'aws' && words[1] === 'lambda' && words[2] === 'invoke') return awsLambdaInvoke(words);
    throw new Error(`not a command the docs' tests run: ${command}`);
  }

  const fromShown = (text: string) => text.replaceAll(`127.0.0.1:${options.shownPort}`, `127.0.0.1:${port}`);

  async function admin(request: Record<string, unknown>): Promise<unknown> {
    const answer = await lambda.send(
      new InvokeCommand({
        FunctionName: 'sundial-admin',
        Payload: Buffer.from(fromShown(JSON.stringify(request))),
      }),
    );
    return JSON.parse(asShown(Buffer.from(answer.Payload ?? []).toString())) as unknown;
  }

  const learn = (shown: string, actual: string) => {
    const shownValues = mask.generated(shown);
    const actualValues = mask.generated(actual);
    if (shownValues.length !== actualValues.length) return;
    shownValues.forEach((value, index) => {
      const other = actualValues[index] as string;
      if (value !== other && mask.text(value) === mask.text(other)) learned.set(value, other);
    });
  };

  return {
    platform,
    clock,
    logs,
    mask,
    dir,
    run: runCommand,
    admin,
    substitute,
    learn,
    asShown,
    async check({ command, output }) {
      const result = await runCommand(command);
      const actual = asShown(result.output);
      const lines = output.trimEnd().split('\n');
      const exit = /^\[exit (\d+)\]$/.exec(lines.at(-1) ?? '');
      const expectedCode = exit ? Number(exit[1]) : 0;
      const shownLines = exit ? lines.slice(0, -1) : lines;
      // `…` on a line of its own: the rest of the output is left out on the page
      const cut = shownLines.indexOf('…');
      const shown = (cut < 0 ? shownLines : shownLines.slice(0, cut)).join('\n').trimEnd();
      const compared = cut < 0 ? actual.trimEnd() : actual.split('\n').slice(0, cut).join('\n').trimEnd();
      const agrees =
        result.code === expectedCode && (shown === '' || mask.text(shown) === mask.text(compared));
      if (agrees) learn(shown, compared);
      return { agrees, actual: `${actual.trimEnd()}${result.code === 0 ? '' : `\n[exit ${result.code}]`}` };
    },
    async stop() {
      lambda.destroy();
      await platform.stop();
    },
  };
}

/** A port nothing listens on: one the system just handed out, closed again. */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}
