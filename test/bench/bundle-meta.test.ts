import { describe, expect, it } from 'vitest';
import { bundleMeta, type Metafile } from '../../bench/support/bundle-meta';

type Edge = { path: string; kind: string; external?: boolean };

/** A metafile of one output whose inputs are `graph`'s keys, each `bytes` long. */
function metafile(graph: Record<string, Edge[]>, bytes: Record<string, number>): Metafile {
  return {
    inputs: Object.fromEntries(Object.entries(graph).map(([path, imports]) => [path, { imports }])),
    outputs: {
      'index.mjs': {
        bytes: Object.values(bytes).reduce((sum, size) => sum + size, 0) + 100,
        entryPoint: 'entry.ts',
        inputs: Object.fromEntries(
          Object.entries(bytes).map(([path, size]) => [path, { bytesInOutput: size }]),
        ),
      },
    },
  };
}

const imports = (path: string): Edge => ({ path, kind: 'import-statement' });

describe('bundle metafiles', () => {
  it('counts as loaded at import what the entry reaches through static imports and requires, not import()', () => {
    // Prepare
    const meta = bundleMeta(
      metafile(
        {
          'entry.ts': [imports('lib/store.ts'), { path: 'lib/events.ts', kind: 'dynamic-import' }],
          'lib/store.ts': [{ path: 'node_modules/luxon/luxon.js', kind: 'require-call' }],
          'lib/events.ts': [imports('node_modules/@aws-sdk/client-eventbridge/index.js')],
          'node_modules/luxon/luxon.js': [{ path: 'node:fs', kind: 'require-call', external: true }],
          'node_modules/@aws-sdk/client-eventbridge/index.js': [],
        },
        { 'entry.ts': 10, 'lib/store.ts': 20, 'lib/events.ts': 30 },
      ),
    );

    // Assess
    expect([...meta.loadedAtImport].sort()).toEqual([
      'entry.ts',
      'lib/store.ts',
      'node_modules/luxon/luxon.js',
    ]);
    expect(meta.bytes).toBe(160);
  });

  it("counts a package as the SDK's only when nothing but the SDK imports it", () => {
    // Prepare
    const sdk = 'node_modules/@aws-sdk/client-sqs/index.js';
    const meta = bundleMeta(
      metafile(
        {
          'entry.ts': [
            imports(sdk),
            imports('node_modules/@smithy/core/index.js'),
            imports('node_modules/shared/index.js'),
          ],
          [sdk]: [imports('node_modules/@aws-crypto/md5/index.js'), imports('node_modules/shared/index.js')],
          'node_modules/@smithy/core/index.js': [],
          'node_modules/@aws-crypto/md5/index.js': [imports('node_modules/@aws-crypto/util/index.js')],
          'node_modules/@aws-crypto/util/index.js': [],
          'node_modules/shared/index.js': [],
        },
        {
          'entry.ts': 1,
          [sdk]: 100,
          'node_modules/@smithy/core/index.js': 200,
          'node_modules/@aws-crypto/md5/index.js': 30,
          'node_modules/@aws-crypto/util/index.js': 4,
          'node_modules/shared/index.js': 5000,
        },
      ),
    );

    // Assess
    expect(meta.sdkBytes).toBe(334);
  });
});
