import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** The layers of the README's architecture: what each may import besides itself (a layer sits on the ones it names). */
const allowed: Record<string, readonly string[]> = {
  core: [],
  adapters: ['core'],
  runtime: ['core', 'adapters'],
  infra: ['adapters/dynamodb/table-design', 'core/limits', 'core/code-schedules/declaration'],
  local: ['runtime', 'core', 'adapters', 'dashboard'],
  cli: ['core', 'adapters', 'dashboard'],
  dashboard: ['core'],
  // Its types come from the contract in core; what it runs is checked by test/client/dependencies.test.ts.
  client: ['core'],
};

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** Relative import specifiers of a file: static imports, re-exports and dynamic imports. */
function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const pattern = /(?:from\s+|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g;
  return [...text.matchAll(pattern)].map((match) => match[1] ?? '');
}

function layerViolations(libRoot: string): string[] {
  const violations: string[] = [];
  for (const file of sourceFiles(libRoot)) {
    const from = relative(libRoot, file).split('/')[0] ?? '';
    for (const specifier of relativeImports(file)) {
      const target = relative(libRoot, resolve(dirname(file), specifier)).replace(/\.(ts|js|mjs)$/, '');
      const to = target.startsWith('..') ? 'outside lib' : (target.split('/')[0] ?? '');
      const permitted = allowed[from] ?? [];
      const ok = to === from || permitted.some((entry) => entry === to || entry === target);
      if (!ok) {
        violations.push(
          `lib/${relative(libRoot, file)} imports '${specifier}' (${to}); ${from} may import ${permitted.join(', ') || 'nothing of the project'}`,
        );
      }
    }
  }
  return violations;
}

describe('layering (one-way imports)', () => {
  it('imports only in the allowed direction between lib/ layers', () => {
    expect(layerViolations(join(root, 'lib'))).toEqual([]);
  });

  it('keeps user tasks in functions/ away from infra, local and cli code', () => {
    const offending = sourceFiles(join(root, 'functions')).flatMap((file) =>
      relativeImports(file)
        .filter((specifier) => /lib\/(infra|local|cli)\//.test(specifier))
        .map((specifier) => `${relative(root, file)} imports ${specifier}`),
    );
    expect(offending).toEqual([]);
  });

  it('reports a core module that imports the runtime, and infra importing more than the table design and limits', () => {
    const libRoot = join(mkdtempSync(join(tmpdir(), 'sundial-layers-')), 'lib');
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(libRoot, path)), { recursive: true });
      writeFileSync(join(libRoot, path), text);
    };
    write('core/clock.ts', "import { handler } from '../runtime/handlers/tick';\n");
    write(
      'infra/stack.ts',
      "import { keys } from '../adapters/dynamodb/table-design';\nimport { s } from '../adapters/dynamodb/store';\n",
    );
    write('runtime/handlers/tick.ts', "export { x } from '../../core/clock';\n");

    expect(layerViolations(libRoot)).toEqual([
      "lib/core/clock.ts imports '../runtime/handlers/tick' (runtime); core may import nothing of the project",
      "lib/infra/stack.ts imports '../adapters/dynamodb/store' (adapters); infra may import adapters/dynamodb/table-design, core/limits, core/code-schedules/declaration",
    ]);
  });
});
