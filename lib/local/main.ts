import { createDashboardRoute } from '../dashboard';
import { banner } from './banner';
import { startLocalPlatform } from './platform';
import { parseScriptFlags } from './script-flags';
import { startFlags } from './start-flags';

async function main(): Promise<void> {
  const flags = parseScriptFlags(startFlags());
  const { port, dataDir, workers: workerConcurrency } = flags;
  const tickIntervalMs = flags.tickSeconds * 1000;

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
