import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** The Lambda runtime of all three functions (the code also runs on the local Node 20). */
export const LAMBDA_RUNTIME = lambda.Runtime.NODEJS_22_X;

/**
 * esbuild's `--alias` that makes every import of luxon the build cron-parser `require`s: Sundial's ES
 * imports would otherwise bundle luxon's ES module build beside it, a second copy (70 KiB minified) that
 * every cold start loads.
 */
export function luxonAlias(projectRoot: string): string {
  return `luxon=${createRequire(join(projectRoot, 'package.json')).resolve('luxon')}`;
}

/** Lets bundled ESM code `require` the CommonJS modules esbuild leaves as `require` calls. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __sundialCreateRequire } from 'node:module'; const require = __sundialCreateRequire(import.meta.url);";

export interface SundialFunctionProps {
  readonly entry: string;
  readonly description: string;
  readonly projectRoot: string;
  readonly timeout: Duration;
  readonly memorySize: number;
  readonly environment: Record<string, string>;
  readonly tracing: boolean;
  readonly logRetention: logs.RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  readonly reservedConcurrentExecutions?: number;
  /** Async invocations (EventBridge): retries of a failed run. @default Lambda's default (2) */
  readonly asyncRetryAttempts?: number;
  /** Async invocations: how long an event may wait (throttled) before it is dropped. */
  readonly asyncMaxEventAge?: Duration;
}

/**
 * One Sundial Lambda: an esbuild bundle (local esbuild, never Docker) of a TypeScript entry as one
 * minified ESM `index.mjs` with its source map and esbuild's metafile (`index.meta.json`: what went in,
 * and by which import; test/infra/synth.int.test.ts holds each bundle to its budget with it), arm64,
 * with its own role and its own log group.
 *
 * The role starts empty: it gets write access to this log group only (instead of the managed
 * `AWSLambdaBasicExecutionRole`, which allows every log group), plus what `permissions.ts` grants.
 */
export class SundialFunction extends Construct {
  readonly function: nodejs.NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: SundialFunctionProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Sundial ${id} Lambda`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      runtime: LAMBDA_RUNTIME,
      architecture: lambda.Architecture.ARM_64,
      timeout: props.timeout,
      memorySize: props.memorySize,
      role: this.role,
      logGroup: this.logGroup,
      tracing: props.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      retryAttempts: props.asyncRetryAttempts,
      maxEventAge: props.asyncMaxEventAge,
      projectRoot: props.projectRoot,
      depsLockFilePath: join(props.projectRoot, 'package-lock.json'),
      bundling: {
        forceDockerBundling: false,
        format: nodejs.OutputFormat.ESM,
        mainFields: ['module', 'main'],
        banner: ESM_REQUIRE_BANNER,
        esbuildArgs: { '--alias': luxonAlias(props.projectRoot) },
        // The SDK as the lockfile pins it, tree-shaken into the one file: importing it from the runtime's
        // own copy (hundreds of files) took most of a cold start's import (docs/benchmarks.md, "Lambda bundles").
        bundleAwsSDK: true,
        minify: true,
        metafile: true,
        sourceMap: true,
        sourcesContent: false,
        tsconfig: join(props.projectRoot, 'tsconfig.json'),
      },
    });
  }
}
