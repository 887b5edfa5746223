import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

/**
 * The page's files: index.html and its CSS as they are, and its TypeScript (page/app.ts and what it
 * imports, the shared formatters of lib/core/format included) bundled by esbuild into one ES module
 * when the dashboard starts. Nothing comes from the network.
 */
const PAGE_DIR = fileURLToPath(new URL('./page/', import.meta.url));
export const PAGE_ENTRY = join(PAGE_DIR, 'app.ts');

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export interface Asset {
  body: Buffer;
  contentType: string;
}

/** The page's script: app.ts with its imports in one ES module for today's browsers. */
export function bundlePage(): { code: Buffer; inputs: string[] } {
  const result = buildSync({
    entryPoints: [PAGE_ENTRY],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error('esbuild wrote no bundle of the dashboard page');
  return { code: Buffer.from(output.contents), inputs: Object.keys(result.metafile.inputs) };
}

let loaded: ReadonlyMap<string, Asset> | undefined;

/**
 * Every file of the page by its URL path: `/` for index.html, `/assets/app.js` for the script,
 * `/assets/<name>` for the styles. Built once per process, so a request can only ever get one of
 * these files (no path is ever joined from a URL).
 */
export function loadAssets(): ReadonlyMap<string, Asset> {
  loaded ??= readAssets();
  return loaded;
}

function readAssets(): ReadonlyMap<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(PAGE_DIR)) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (!contentType) continue;
    const path = name === 'index.html' ? '/' : `/assets/${name}`;
    assets.set(path, { body: readFileSync(join(PAGE_DIR, name)), contentType });
  }
  assets.set('/assets/app.js', { body: bundlePage().code, contentType: CONTENT_TYPES['.js'] ?? '' });
  return assets;
}

/** Headers of every page response: nothing from elsewhere, no framing, no caching, no sniffing. */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'cross-origin-resource-policy': 'same-origin',
};
