import { readdir } from 'node:fs/promises';
import { extname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { registryFromEntries, type TaskModuleEntry, type TaskRegistry, TaskRegistryError } from './registry';
import { TaskOptionsError } from './task-options';

const MODULE_EXTENSIONS = new Set(['.ts', '.mts', '.js', '.mjs']);

/**
 * Imports every task module in `dir` (not its subfolders; `.d.ts` and `*.test.*` files are skipped)
 * and builds the registry. A new module is picked up without editing anything else; pass a new
 * `reloadKey` to import edited modules again. A module that
 * fails to import, or exports no valid task, fails the whole load with the file named.
 */
export async function loadTaskRegistryFromDirectory(
  dir: string,
  options: { reloadKey?: string } = {},
): Promise<TaskRegistry> {
  // A module URL is imported once per process; a new query string makes a watcher's reload see edits.
  const query = options.reloadKey ? `?reload=${encodeURIComponent(options.reloadKey)}` : '';
  const files = (await readdir(dir, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && isTaskModule(entry.name))
    .map((entry) => join(dir, entry.name))
    .sort();
  const problems: string[] = [];
  const entries: TaskModuleEntry[] = [];
  for (const path of files) {
    const file = relative(process.cwd(), path) || path;
    const id = fileNameWithoutExtension(path);
    try {
      entries.push({ id, file, module: await import(`${pathToFileURL(path).href}${query}`) });
    } catch (error) {
      problems.push(`${file}: ${importProblem(error)}`);
    }
  }
  try {
    const registry = registryFromEntries(entries);
    if (problems.length === 0) return registry;
  } catch (error) {
    if (!(error instanceof TaskRegistryError)) throw error;
    problems.push(...error.problems);
  }
  throw new TaskRegistryError(problems);
}

/** Options `defineTask` refused are the module's problem as written, not a failed import. */
function importProblem(error: unknown): string {
  if (error instanceof TaskOptionsError) return error.message;
  return `failed to import: ${error instanceof Error ? error.message : String(error)}`;
}

function isTaskModule(name: string): boolean {
  return MODULE_EXTENSIONS.has(extname(name)) && !name.endsWith('.d.ts') && !/\.test\.[mc]?[jt]s$/.test(name);
}

function fileNameWithoutExtension(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name.slice(0, name.length - extname(name).length);
}
