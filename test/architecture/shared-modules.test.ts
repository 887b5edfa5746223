import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const testRoot = resolve(import.meta.dirname, '..');

/** Test files of the `unit` and `infra` projects (vitest.config.ts): neither integration nor end-to-end. */
const sharedModuleTestFiles = () =>
  readdirSync(testRoot, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.test.ts') && !/\.(int|e2e)\.test\.ts$/.test(path))
    .sort();

describe('unit and infra test files', () => {
  it('mock no module: they share one module cache per worker, so a module mock would not take', () => {
    const files = sharedModuleTestFiles();
    const mocking = files.filter((path) =>
      /\bvi\s*\.\s*(do)?[mM]ock\s*\(/.test(readFileSync(join(testRoot, path), 'utf8')),
    );

    expect(files.length).toBeGreaterThan(0);
    expect(mocking, 'inject the dependency, or vi.spyOn it and restore it afterwards').toEqual([]);
  });
});
