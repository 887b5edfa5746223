import { quietSdkNodeVersionWarning } from '../adapters/sdk-node-version';
import { createDashboardRoute } from '../dashboard';
import { banner } from './banner';
import { startLocalPlatform } from './platform';
import { parseScriptFlags } from './script-flags';
import { startFlags } from './start-flags';

/** Signals this close after the first are the same Ctrl-C, passed on by a wrapper process. */
const SAME_PRESS_MS = 1_000;
/** A stop takes a few seconds (lib/local/platform.ts); past this, something is wrong: exit anyway. */
const STOP_LIMIT_MS = 20_000;

async function main(): Promise<void> {
  quietSdkNodeVersionWarning();
  const flags = parseScriptFlags(startFlags());
  const { port, dataDir, workers: workerConcurrency } = flags;
  const tickIntervalMs = flags.tickSeconds * 1000;

  // Listening from the start: a signal while DynamoDB Local starts must still end it (exiting runs the
  // cleanup that stops it; Node's default action would not). A terminal sends Ctrl-C to the whole process
  // group, and `npm start`'s wrappers may pass it on once more: only a signal a second or more after the
  // first is a second press, which forces the exit (losing what a stop saves).
  let platform: Awaited<ReturnType<typeof startLocalPlatform>> | undefined;
  let stoppingSince: number | undefined;
  const shutdown = (signal: 'SIGINT' | 'SIGTERM') => {
    const code = signal === 'SIGINT' ? 130 : 143;
    if (platform === undefined) process.exit(code);
    if (stoppingSince !== undefined) {
      if (Date.now() - stoppingSince < SAME_PRESS_MS) return;
      process.exit(code);
    }
    stoppingSince = Date.now();
    process.stdout.write(`\n${signal}: stopping (press Ctrl-C again to force)…\n`);
    setTimeout(() => {
      process.stderr.write(`The local platform did not stop within ${STOP_LIMIT_MS / 1000} s; exiting.\n`);
      process.exit(1);
    }, STOP_LIMIT_MS).unref();
    platform.stop().then(
      () => {
        process.stdout.write('Stopped.\n');
        process.exit(0);
      },
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));

  process.stdout.write('Starting Sundial locally (DynamoDB Local takes a few seconds)…\n');
  try {
    platform = await startLocalPlatform({
      port,
      dataDir,
      tickIntervalMs,
      workerConcurrency,
      writeTaskTypes: true,
      routes: ({ invokeAdmin }) => [createDashboardRoute({ invokeAdmin: (request) => invokeAdmin(request) })],
    });
  } catch (error) {
    process.stderr.write(
      `Could not start the local platform: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  }
  process.stdout.write(banner(platform, { dataDir, tickIntervalMs }));
}

await main();
