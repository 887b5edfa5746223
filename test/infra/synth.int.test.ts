import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBundleMeta } from '../../bench/support/bundle-meta';
import { CDK_CLI, lambdaBundles, OFFLINE_ENV, synthOffline } from '../../bench/support/synth';
import { ESM_REQUIRE_BANNER } from '../../lib/infra/functions';
import { PROJECT_ROOT } from '../../lib/infra/sundial';

const run = promisify(execFile);

/**
 * A real, offline `cdk synth` with the pinned CLI (node_modules/.bin/cdk, aws-cdk 2.1148.1): bin/app.ts
 * under tsx, the task modules of functions/, esbuild bundling, and cdk-nag as a validation plugin
 * (any unacknowledged finding fails the synth). No AWS credentials, no network.
 */
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
  synthOutput = await synthOffline(outdir);
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
    const { stdout } = await run(CDK_CLI, ['--version'], {
      env: OFFLINE_ENV,
    });

    expect(stdout.trim()).toMatch(/^2\.1148\.1 /);
  });

  it('passes cdk-nag and writes the stack with its five functions and outputs', () => {
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: unknown[];
    };

    expect(report.pluginReports).toEqual([]);
    expect(functions()).toHaveLength(5);
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

  it('bundles each function as ESM with the createRequire banner, a source map and the metafile', () => {
    for (const [, resource] of functions()) {
      const dir = assetDir(resource);
      expect(readdirSync(dir).sort()).toEqual(['index.meta.json', 'index.mjs', 'index.mjs.map']);
      expect(readFileSync(join(dir, 'index.mjs'), 'utf8').startsWith(ESM_REQUIRE_BANNER)).toBe(true);
    }
  });

  it('bundles one copy of luxon, the build cron-parser requires, not also its ES module build', () => {
    for (const [id, resource] of functions()) {
      const modules = [...readBundleMeta(assetDir(resource)).modules.keys()];
      expect(modules, id).toContain('node_modules/luxon/build/node/luxon.js');
      expect(
        modules.filter((path) => path.includes('node_modules/luxon/build/es6/')),
        id,
      ).toEqual([]);
    }
  });

  it('registers every task of functions/ in the worker, admin and schedules bundles', () => {
    const tasks = readdirSync(join(PROJECT_ROOT, 'functions'))
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.includes('.test.'))
      .map((name) => name.replace(/\.ts$/, ''));
    const withRegistry = functions().filter(([, resource]) =>
      /worker|admin|declared in code/i.test(String(resource.Properties.Description)),
    );

    expect(withRegistry).toHaveLength(3);
    for (const [, resource] of withRegistry) {
      const dir = assetDir(resource);
      const bundle = readFileSync(join(dir, 'index.mjs'), 'utf8');
      const modules = readBundleMeta(dir).loadedAtImport;
      for (const task of tasks) {
        expect(bundle).toContain(`"${task}":`);
        expect(modules).toContain(`functions/${task}.ts`);
      }
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

/**
 * What each bundle may weigh, minified: in all, and outside the AWS SDK (what a bundle held while it
 * left the SDK to the Lambda runtime's copy). docs/benchmarks.md ("Lambda bundles") has the figures.
 */
const BUDGET = { whole: 950_000, outsideSdk: 420_000 };

/** Modules a Lambda imports when it first uses them (`import()`), never at its start. */
const LOADED_WHEN_USED = ['node_modules/@aws-sdk/client-eventbridge/', 'lib/adapters/eventbridge/'];

/** The largest packages of a bundle, for a failure message. */
function heaviest(modules: ReadonlyMap<string, number>): string {
  const byPackage = new Map<string, number>();
  for (const [path, bytes] of modules) {
    const name =
      /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path.split('/').slice(0, 2).join('/');
    byPackage.set(name, (byPackage.get(name) ?? 0) + bytes);
  }
  return [...byPackage]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([name, bytes]) => `${name} ${Math.round(bytes / 1000)} KB`)
    .join(', ');
}

describe('the bundles cold starts load (esbuild metafiles of the synth)', () => {
  it('keeps each bundle within its budget: 950 KB minified, 420 KB of it outside the AWS SDK', () => {
    for (const bundle of lambdaBundles(outdir)) {
      const meta = readBundleMeta(bundle.dir);
      const message = `${bundle.name}: ${heaviest(meta.modules)}`;

      expect(meta.bytes, message).toBeLessThanOrEqual(BUDGET.whole);
      expect(meta.bytes - meta.sdkBytes, message).toBeLessThanOrEqual(BUDGET.outsideSdk);
    }
  });

  it('loads EventBridge when a Lambda first publishes, not when it starts', () => {
    for (const bundle of lambdaBundles(outdir)) {
      const meta = readBundleMeta(bundle.dir);
      const lazy = (path: string) => LOADED_WHEN_USED.some((prefix) => path.startsWith(prefix));

      expect([...meta.loadedAtImport].filter(lazy).slice(0, 5), bundle.name).toEqual([]);
      expect([...meta.modules.keys()].filter(lazy).length, bundle.name).toBeGreaterThan(0);
    }
  });

  it('bundles the Lambda client into the tick alone, which starts the dispatchers', () => {
    const holders = lambdaBundles(outdir)
      .filter((bundle) =>
        [...readBundleMeta(bundle.dir).modules.keys()].some((path) =>
          path.startsWith('node_modules/@aws-sdk/client-lambda/'),
        ),
      )
      .map((bundle) => bundle.name);

    expect(holders).toEqual(['tick']);
  });
});
