import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../lib/infra/sundial';

const run = promisify(execFile);

/** The pinned CDK CLI (aws-cdk 2.1148.1) of node_modules. */
export const CDK_CLI = join(PROJECT_ROOT, 'node_modules', '.bin', 'cdk');

/** An environment without AWS credentials or account: `cdk synth` then needs no network. */
export const OFFLINE_ENV: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^AWS_|^CDK_DEFAULT_/.test(key))),
  CDK_DISABLE_VERSION_CHECK: '1',
  CDK_DISABLE_CLI_TELEMETRY: 'true',
  AWS_EC2_METADATA_DISABLED: 'true',
};

const SYNTH_TIMEOUT_MS = 120_000;

/**
 * A real, offline `cdk synth` of bin/app.ts with the pinned CLI into `outdir`: the task modules of
 * functions/, esbuild's bundles, cdk-nag. Resolves with what the CLI printed.
 */
export async function synthOffline(outdir: string): Promise<string> {
  const { stdout, stderr } = await run(CDK_CLI, ['synth', '--no-notices', '-q', '-o', outdir], {
    cwd: PROJECT_ROOT,
    env: OFFLINE_ENV,
    timeout: SYNTH_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  });
  return `${stdout}\n${stderr}`;
}

/** One function of a synthesised stack and its bundle. */
export interface LambdaBundle {
  /** From its construct path: `tick`, `dispatcher`, `worker`, `admin`. */
  name: string;
  description: string;
  /** The asset folder: `index.mjs`, its source map and (since bundles carry it) `index.meta.json`. */
  dir: string;
  /** The flags Lambda starts Node with for it (`NODE_OPTIONS` of its environment). */
  nodeOptions: string[];
}

interface TemplateFunction {
  Type: string;
  Properties: { Description?: string; Environment?: { Variables?: Record<string, unknown> } };
  Metadata?: Record<string, string>;
}

/** The functions of the stack `Sundial` synthesised into `outdir`, with their bundles. */
export function lambdaBundles(outdir: string): LambdaBundle[] {
  const template = JSON.parse(readFileSync(join(outdir, 'Sundial.template.json'), 'utf8')) as {
    Resources: Record<string, TemplateFunction>;
  };
  return Object.values(template.Resources)
    .filter((resource) => resource.Type === 'AWS::Lambda::Function')
    .map((resource) => {
      const path = resource.Metadata?.['aws:cdk:path'] ?? '';
      const asset = resource.Metadata?.['aws:asset:path'];
      const name = /\/(\w+)\/Function\/Resource$/.exec(path)?.[1];
      if (!asset || !name) throw new Error(`function ${path} without asset or construct path metadata`);
      const options = resource.Properties.Environment?.Variables?.NODE_OPTIONS;
      return {
        name: name.toLowerCase(),
        description: resource.Properties.Description ?? '',
        dir: join(outdir, asset),
        nodeOptions: typeof options === 'string' ? options.split(' ').filter(Boolean) : [],
      };
    });
}
