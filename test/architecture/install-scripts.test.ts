import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const readJson = (file: string) => JSON.parse(readFileSync(resolve(root, file), 'utf8'));

/** The package's name from its lockfile path (`node_modules/a/node_modules/@s/b` → `@s/b`). */
const packageName = (path: string) => path.split('node_modules/').at(-1) ?? path;

describe('install scripts (npm 11 runs only the approved ones)', () => {
  it('approves or denies, in package.json, every locked package that has an install script', () => {
    // Prepare
    const { packages } = readJson('package-lock.json') as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const { allowScripts = {} } = readJson('package.json') as { allowScripts?: Record<string, boolean> };

    // Act
    const withScripts = Object.entries(packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
      .map(([path]) => packageName(path));
    const unreviewed = withScripts.filter((name) => !(name in allowScripts));

    // Assess: npm install warns about each unreviewed one, and a fresh clone silently lacks its script
    expect(withScripts.length).toBeGreaterThan(0);
    expect(unreviewed).toEqual([]);
  });
});
