import { resolve } from 'node:path';
import { createDashboardRoute } from '../../lib/dashboard';
import { type LocalPlatform, startLocalPlatform } from '../../lib/local/platform';
import { type CliOptions, type CliResult, sundial } from './run-cli';

export { waitFor } from '../support/wait';
export { type CliResult, sundial };

export interface CliPlatform {
  platform: LocalPlatform;
  port: string;
  logs: string[];
  /** `sundial <args> --local` against this platform. */
  cli(args: readonly string[], options?: CliOptions): Promise<CliResult>;
  /** `--json` output of a command that must succeed. */
  json<T>(args: readonly string[]): Promise<T>;
  stop(): Promise<void>;
}

/**
 * The real local platform (DynamoDB Local, SQS emulator, tick loop, workers) with the dashboard and the
 * fixture tasks (or those of `functionsDir`).
 */
export async function startCliPlatform(
  functionsDir = resolve(import.meta.dirname, 'fixtures/functions'),
): Promise<CliPlatform> {
  const logs: string[] = [];
  const platform = await startLocalPlatform({
    port: 0,
    functionsDir,
    tickIntervalMs: 500,
    log: (line) => logs.push(line),
    env: { SUNDIAL_LOG_LEVEL: 'warn' },
    routes: ({ invokeAdmin }) => [createDashboardRoute({ invokeAdmin: (request) => invokeAdmin(request) })],
  });
  const port = new URL(platform.url).port;
  const cli = (args: readonly string[], options: CliOptions = {}) =>
    sundial([...args, '--local'], { ...options, env: { SUNDIAL_PORT: port, ...options.env } });
  return {
    platform,
    port,
    logs,
    cli,
    async json<T>(args: readonly string[]) {
      const result = await cli([...args, '--json']);
      if (result.code !== 0)
        throw new Error(`sundial ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout) as T;
    },
    stop: () => platform.stop(),
  };
}
