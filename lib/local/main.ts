import { parseArgs } from 'node:util';
import { createDashboardRoute } from '../dashboard';
import { banner } from './banner';
import { DEFAULT_LOCAL_PORT, startLocalPlatform } from './platform';

const USAGE = `Usage: npm start -- [options]

Runs Sundial on this machine: DynamoDB Local, the SQS emulator, the tick, workers and the admin API.

Options:
  --port <n>           port of the admin API and dashboard on 127.0.0.1 (default: SUNDIAL_PORT or ${DEFAULT_LOCAL_PORT})
  --data-dir <dir>     keep schedules, jobs and waiting messages in <dir> between runs
  --tick-seconds <s>   how often the tick runs (default 1)
  --workers <n>        worker pollers running at once (default 4)
  -h, --help           show this help`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

function positiveNumber(flag: string, text: string | undefined, fallback: number, integer: boolean): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    fail(`--${flag}: expected a positive ${integer ? 'whole number' : 'number'}, got '${text}'`);
  }
  return value;
}

async function main(): Promise<void> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        'data-dir': { type: 'string' },
        'tick-seconds': { type: 'string' },
        workers: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const port = positiveNumber(
    'port',
    (values.port as string | undefined) ?? process.env.SUNDIAL_PORT,
    DEFAULT_LOCAL_PORT,
    true,
  );
  const tickIntervalMs =
    positiveNumber('tick-seconds', values['tick-seconds'] as string | undefined, 1, false) * 1000;
  const workerConcurrency = positiveNumber('workers', values.workers as string | undefined, 4, true);
  const dataDir = values['data-dir'] as string | undefined;

  process.stdout.write('Starting Sundial locally (DynamoDB Local takes a few seconds)…\n');
  let platform: Awaited<ReturnType<typeof startLocalPlatform>>;
  try {
    platform = await startLocalPlatform({
      port,
      dataDir,
      tickIntervalMs,
      workerConcurrency,
      routes: ({ invokeAdmin }) => [createDashboardRoute({ invokeAdmin: (request) => invokeAdmin(request) })],
    });
  } catch (error) {
    process.stderr.write(
      `Could not start the local platform: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  }
  process.stdout.write(banner(platform, { dataDir, tickIntervalMs }));

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stdout.write(`\n${signal}: stopping (press Ctrl-C again to force)…\n`);
    platform.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

await main();
