import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The parts of esbuild's metafile read here (https://esbuild.github.io/api/#metafile). */
export interface Metafile {
  inputs: Record<string, { imports: readonly { path: string; kind: string; external?: boolean }[] }>;
  outputs: Record<
    string,
    { bytes: number; entryPoint?: string; inputs: Record<string, { bytesInOutput: number }> }
  >;
}

/** A bundle as esbuild's metafile describes it: its size, what went in, and by which kind of import. */
export interface BundleMeta {
  /** Bytes of the bundle (`index.mjs`). */
  bytes: number;
  /** Each module in it, by path from the project root, with its bytes in the bundle. */
  modules: ReadonlyMap<string, number>;
  /** The modules a Node process evaluates when it imports the bundle: the entry's static imports, transitively. */
  loadedAtImport: ReadonlySet<string>;
  /** Bytes of the AWS SDK: `@aws-sdk/*`, `@smithy/*` and the packages only they import. */
  sdkBytes: number;
}

/** Reads `index.meta.json` of a bundle's folder. */
export function readBundleMeta(dir: string): BundleMeta {
  return bundleMeta(JSON.parse(readFileSync(join(dir, 'index.meta.json'), 'utf8')) as Metafile);
}

export function bundleMeta(metafile: Metafile): BundleMeta {
  const output = Object.values(metafile.outputs).find((candidate) => candidate.entryPoint);
  if (!output?.entryPoint) throw new Error('a metafile without an entry point output');
  const modules = new Map(Object.entries(output.inputs).map(([path, input]) => [path, input.bytesInOutput]));
  const sdk = sdkModules(metafile, [...modules.keys()]);
  return {
    bytes: output.bytes,
    modules,
    loadedAtImport: staticClosure(metafile, output.entryPoint),
    sdkBytes: [...sdk].reduce((sum, path) => sum + (modules.get(path) ?? 0), 0),
  };
}

/** The modules `entry` reaches through static imports and `require` calls (not `import()`). */
function staticClosure(metafile: Metafile, entry: string): Set<string> {
  const reached = new Set([entry]);
  const pending = [entry];
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    for (const edge of metafile.inputs[path]?.imports ?? []) {
      if (edge.external || edge.kind === 'dynamic-import' || reached.has(edge.path)) continue;
      reached.add(edge.path);
      pending.push(edge.path);
    }
  }
  return reached;
}

const SDK_PACKAGE = /(^|\/)node_modules\/(@aws-sdk|@smithy)\//;

/** The SDK's own modules, and those of packages that nothing but the SDK imports (its hash functions, its LRU cache). */
function sdkModules(metafile: Metafile, paths: readonly string[]): Set<string> {
  const importers = new Map<string, string[]>();
  for (const path of paths) {
    for (const edge of metafile.inputs[path]?.imports ?? []) {
      importers.set(edge.path, [...(importers.get(edge.path) ?? []), path]);
    }
  }
  const sdk = new Set(paths.filter((path) => SDK_PACKAGE.test(path)));
  for (let grew = true; grew; ) {
    grew = false;
    for (const path of paths) {
      const by = importers.get(path) ?? [];
      if (sdk.has(path) || !path.includes('node_modules/') || by.length === 0) continue;
      if (by.every((importer) => sdk.has(importer))) {
        sdk.add(path);
        grew = true;
      }
    }
  }
  return sdk;
}
