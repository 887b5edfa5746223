import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ESM_REQUIRE_BANNER } from '../../lib/infra/functions';
import { PROJECT_ROOT } from '../../lib/infra/sundial';

const run = promisify(execFile);

/**
 * A real, offline `cdk synth` with the pinned CLI (node_modules/.bin/cdk, aws-cdk 2.1148.1): bin/app.ts
 * under tsx, the task modules of functions/, esbuild bundling, and cdk-nag as a validation plugin
 * (any unacknowledged finding fails the synth). No AWS credentials, no network.
 */
const OFFLINE_ENV: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^AWS_|^CDK_DEFAULT_/.test(key))),
  CDK_DISABLE_VERSION_CHECK: '1',
  CDK_DISABLE_CLI_TELEMETRY: 'true',
  AWS_EC2_METADATA_DISABLED: 'true',
};
const SYNTH_TIMEOUT_MS = 120_000;

interface Template {
  Resources: Record<
    string,
    { Type: string; Properties: Record<string, unknown>; Metadata?: Record<string, string> }
  >;
  Outputs: Record<string, unknown>;
}

let outdir: string;
let template: Template;
let synthOutput: string;

beforeAll(async () => {
  mkdirSync(join(PROJECT_ROOT, '.cache'), { recursive: true });
  // Inside the project, so the bundles' external @aws-sdk/* imports resolve as Lambda's runtime provides them.
  outdir = mkdtempSync(join(PROJECT_ROOT, '.cache', 'synth-check-'));
  const { stdout, stderr } = await run(
    join(PROJECT_ROOT, 'node_modules', '.bin', 'cdk'),
    ['synth', '--no-notices', '-q', '-o', outdir],
    {
      cwd: PROJECT_ROOT,
      env: OFFLINE_ENV,
      timeout: SYNTH_TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  synthOutput = `${stdout}\n${stderr}`;
  template = JSON.parse(readFileSync(join(outdir, 'Sundial.template.json'), 'utf8')) as Template;
}, SYNTH_TIMEOUT_MS + 10_000);

afterAll(() => {
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

function functions() {
  return Object.entries(template.Resources).filter(
    ([, resource]) => resource.Type === 'AWS::Lambda::Function',
  );
}

function assetDir(resource: { Metadata?: Record<string, string> }): string {
  const path = resource.Metadata?.['aws:asset:path'];
  if (!path) throw new Error('function without aws:asset:path metadata');
  return join(outdir, path);
}

describe('cdk synth (offline, pinned CLI, real bundles)', () => {
  it('uses the pinned CLI', async () => {
    const { stdout } = await run(join(PROJECT_ROOT, 'node_modules', '.bin', 'cdk'), ['--version'], {
      env: OFFLINE_ENV,
    });

    expect(stdout.trim()).toMatch(/^2\.1148\.1 /);
  });

  it('passes cdk-nag and writes the stack with its four functions and outputs', () => {
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: unknown[];
    };

    expect(report.pluginReports).toEqual([]);
    expect(functions()).toHaveLength(4);
    expect(Object.keys(template.Outputs).sort()).toEqual([
      'AdminFunctionName',
      'DashboardName',
      'DeadLetterQueueUrl',
      'EventBusName',
      'QueueUrl',
      'TableName',
    ]);
    expect(synthOutput).not.toMatch(/\[Warning|\[Error/);
  });

  it('bundles each function as ESM with the createRequire banner and a source map', () => {
    for (const [, resource] of functions()) {
      const dir = assetDir(resource);
      expect(readdirSync(dir).sort()).toEqual(['index.mjs', 'index.mjs.map']);
      expect(readFileSync(join(dir, 'index.mjs'), 'utf8').startsWith(ESM_REQUIRE_BANNER)).toBe(true);
    }
  });

  it('bundles one copy of luxon, the build cron-parser requires, not also its ES module build', () => {
    for (const [id, resource] of functions()) {
      const bundle = readFileSync(join(assetDir(resource), 'index.mjs'), 'utf8');
      expect(bundle, id).toContain('node_modules/luxon/build/node/luxon.js');
      expect(bundle, id).not.toContain('node_modules/luxon/build/es6/');
    }
  });

  it('registers every task of functions/ in the worker and admin bundles', () => {
    const tasks = readdirSync(join(PROJECT_ROOT, 'functions'))
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.includes('.test.'))
      .map((name) => name.replace(/\.ts$/, ''));
    const withRegistry = functions().filter(([, resource]) =>
      /worker|admin/i.test(String(resource.Properties.Description)),
    );

    expect(withRegistry).toHaveLength(2);
    for (const [, resource] of withRegistry) {
      const bundle = readFileSync(join(assetDir(resource), 'index.mjs'), 'utf8');
      for (const task of tasks) expect(bundle).toContain(`"${task}": `);
    }
  });

  it('produces bundles that load on this Node and export a handler function', async () => {
    for (const [id, resource] of functions()) {
      const entry = join(assetDir(resource), 'index.mjs');
      expect(existsSync(entry), id).toBe(true);
      const { stdout } = await run(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const m = await import(${JSON.stringify(entry)}); console.log(typeof m.handler);`,
        ],
        { cwd: PROJECT_ROOT, env: OFFLINE_ENV, timeout: 30_000 },
      );
      expect(stdout.trim(), id).toBe('function');
    }
  }, 60_000);
});
