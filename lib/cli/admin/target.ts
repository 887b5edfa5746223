import { createConnection } from 'node:net';
import { LOCAL_ADMIN_FUNCTION, LOCAL_ADMIN_PORT } from '../../core/admin-contract/endpoint';
import type { CliIo } from '../io';
import { envOf } from '../io';
import type { AdminClient } from './client';
import { LambdaAdminClient } from './lambda-admin';
import { adminFunctionFromStack } from './stack-outputs';

export const DEFAULT_STACK = 'Sundial';
/** How long to wait for the local platform before trying AWS. */
const LOCAL_PROBE_TIMEOUT_MS = 300;
const LOCAL_HINT = 'is the local platform running? start it with npm start';

/** The flags every command that talks to the admin API accepts (declared in `admin-command.ts`). */
export interface TargetFlags {
  local?: boolean | undefined;
  function?: string | undefined;
  stack?: string | undefined;
  profile?: string | undefined;
  region?: string | undefined;
}

export function localPlatformUrl(io: CliIo): string {
  const port = envOf(io).SUNDIAL_PORT ?? String(LOCAL_ADMIN_PORT);
  return `http://127.0.0.1:${port}`;
}

/**
 * Picks the admin API to talk to: `--local`; else `--function` / `SUNDIAL_ADMIN_FUNCTION`; else, when
 * no AWS flag is given and the local platform answers within 300 ms, the local platform; else the
 * function named by the stack's `AdminFunctionName` output.
 */
export async function connectAdmin(flags: TargetFlags, io: CliIo): Promise<AdminClient> {
  const url = localPlatformUrl(io);
  if (flags.local) return localAdmin(url);
  const aws = { profile: flags.profile, region: flags.region };
  const named = flags.function ?? envOf(io).SUNDIAL_ADMIN_FUNCTION;
  if (named) return awsAdmin(named, aws);
  const awsAsked = flags.stack !== undefined || flags.profile !== undefined || flags.region !== undefined;
  if (!awsAsked && (await answers(url))) return localAdmin(url);
  return awsAdmin(await adminFunctionFromStack(flags.stack ?? DEFAULT_STACK, aws), aws);
}

function localAdmin(url: string): AdminClient {
  return new LambdaAdminClient({
    functionName: LOCAL_ADMIN_FUNCTION,
    config: {
      endpoint: url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    },
    description: `the local platform at ${url}`,
    unreachableHint: LOCAL_HINT,
  });
}

function awsAdmin(functionName: string, aws: { profile?: string | undefined; region?: string | undefined }) {
  return new LambdaAdminClient({
    functionName,
    config: {
      ...(aws.profile === undefined ? {} : { profile: aws.profile }),
      ...(aws.region === undefined ? {} : { region: aws.region }),
    },
    description: `the admin function '${functionName}'`,
    unreachableHint:
      'check the function name, region and your AWS credentials (--function, --region, --profile)',
  });
}

/**
 * True when something listens at `url`'s port within the probe timeout. A TCP connect is answered
 * by the kernel even while the platform is busy, and refused at once when nothing listens.
 */
function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port), timeout: LOCAL_PROBE_TIMEOUT_MS });
    const settle = (listening: boolean) => {
      socket.destroy();
      resolve(listening);
    };
    socket.once('connect', () => settle(true));
    socket.once('timeout', () => settle(false));
    socket.once('error', () => settle(false));
  });
}
