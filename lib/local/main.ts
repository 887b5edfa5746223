import { quietSdkNodeVersionWarning } from '../adapters/sdk-node-version';
import { createDashboardRoute } from '../dashboard';
import { banner } from './banner';
import { startLocalPlatform } from './platform';
import { parseScriptFlags } from './script-flags';
import { startFlags } from './start-flags';

async function main(): Promise<void> {
  quietSdkNodeVersionWarning();
  const flags = parseScriptFlags(startFlags());
  const { port, dataDir, workers: workerConcurrency } = flags;
  const tickIntervalMs = flags.tickSeconds * 1000;

  // Listening from the start: a signal while DynamoDB Local starts must still end it (exiting runs the
  // cleanup that stops it; Node's default action would not), and a second signal forces the exit.
  let platform: Awaited<ReturnType<typeof startLocalPlatform>> | undefined;
  let stopping = false;
  const shutdown = (signal: 'SIGINT' | 'SIGTERM') => {
    const code = signal === 'SIGINT' ? 130 : 143;
    if (stopping || platform === undefined) process.exit(code);
    stopping = true;
    process.stdout.write(`\n${signal}: stopping (press Ctrl-C again to force)…\n`);
    platform.stop().then(
      () => process.exit(0),
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
