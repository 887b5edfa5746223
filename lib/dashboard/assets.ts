import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The page's files (plain HTML, CSS and ES modules: no build step, nothing from the network). */
const PAGE_DIR = fileURLToPath(new URL('./page/', import.meta.url));

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

/**
 * Every file of the page by its URL path: `/` for index.html, `/assets/<name>` for the others.
 * Read once, so a request can only ever get one of these files (no path is ever joined from a URL).
 */
export function loadAssets(): ReadonlyMap<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(PAGE_DIR)) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (!contentType) continue;
    const path = name === 'index.html' ? '/' : `/assets/${name}`;
    assets.set(path, { body: readFileSync(join(PAGE_DIR, name)), contentType });
  }
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
