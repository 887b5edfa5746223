import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { resolveTarget } from '../../lib/client/target';
import { TASK_TYPES_FILE, taskTypesSource } from '../../lib/runtime/tasks/type-map';

const ROOT = resolve(import.meta.dirname, '../..');

describe('sundial/client', () => {
  it('depends on the AWS SDK’s Lambda client only: no CDK, zod, luxon or runtime code in its bundle', async () => {
    const bundled = await build({
      entryPoints: [join(ROOT, 'lib/client/index.ts')],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'silent',
    });

    const inputs = Object.keys(bundled.metafile.inputs).sort();
    const packages = Object.values(bundled.metafile.outputs).flatMap((output) =>
      output.imports.filter((entry) => entry.external).map((entry) => entry.path),
    );
    expect(inputs).toEqual([
      'lib/client/client.ts',
      'lib/client/errors.ts',
      'lib/client/index.ts',
      'lib/client/target.ts',
      'lib/core/admin-contract/endpoint.ts',
      'lib/core/limits.ts',
    ]);
    expect([...new Set(packages)]).toEqual(['@aws-sdk/client-lambda']);
  });

  it('is the package entry point `sundial/client`', () => {
    const { exports } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, string>;
    };

    expect(exports['./client']).toBe('./lib/client/index.ts');
  });

  it('finds the admin function in stack outputs: the outputs file of cdk deploy, or one stack’s', () => {
    const file = {
      Shop: { AdminFunctionName: 'Shop-SundialAdmin-1', TableName: 't1' },
      Other: { AdminFunctionName: 'Other-SundialAdmin-2' },
    };

    expect(resolveTarget({ stackOutputs: file, stack: 'Shop' }).functionName).toBe('Shop-SundialAdmin-1');
    expect(resolveTarget({ stackOutputs: file.Other }).functionName).toBe('Other-SundialAdmin-2');
    expect(() => resolveTarget({ stackOutputs: file })).toThrow(
      'the stack outputs name 2 admin functions; say which stack with { stack }',
    );
    expect(() => resolveTarget({ stackOutputs: { Shop: { TableName: 't' } } })).toThrow(
      /the stack outputs have no AdminFunctionName/,
    );
  });

  it('talks to the local platform on 127.0.0.1 with dummy credentials, or to a function with the caller’s', () => {
    expect(resolveTarget({ local: true })).toMatchObject({
      functionName: 'sundial-admin',
      config: { endpoint: 'http://127.0.0.1:4750', region: 'us-east-1' },
    });
    expect(
      resolveTarget({ functionName: 'arn:aws:lambda:eu-west-1:1:function:a' }, { region: 'eu-west-1' }),
    ).toEqual({
      functionName: 'arn:aws:lambda:eu-west-1:1:function:a',
      config: { region: 'eu-west-1' },
    });
  });
});

describe('the task map of functions/ (functions/tasks.d.ts)', () => {
  it('is current: what npm start writes for the task modules there', () => {
    const files = readdirSync(join(ROOT, 'functions')).filter(
      (name) => /\.(ts|mts|js|mjs)$/.test(name) && !name.endsWith('.d.ts'),
    );
    const tasks = files.map((name) => ({ id: name.replace(/\.[^.]+$/, ''), file: `functions/${name}` }));

    expect(readFileSync(join(ROOT, 'functions', TASK_TYPES_FILE), 'utf8')).toBe(taskTypesSource(tasks));
  });

  it('imports each module’s default export by its id', () => {
    expect(
      taskTypesSource([
        { id: 'send-report', file: 'functions/send-report.ts' },
        { id: 'a-b', file: 'x/a-b.mjs' },
      ]),
    ).toBe(
      `// Written by npm start from the task modules in this folder; do not edit (a test checks it is current).
import type task_a_b from './a-b.mjs';
import type task_send_report from './send-report';

/** The tasks of this folder, for the typed client: \`new SundialClient<SundialTasks>(…)\`. */
export type SundialTasks = {
  'a-b': typeof task_a_b;
  'send-report': typeof task_send_report;
};
`,
    );
  });
});
