import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { UsageError } from '../../command';

/** What an import file holds: items with the fields of add_schedule and add_job (docs/admin-api.md). */
export interface ImportFile {
  schedules: unknown[];
  jobs: unknown[];
}

const SECTIONS = ['schedules', 'jobs'] as const;

/**
 * Reads a `.json`, `.yaml` or `.yml` file of `{ schedules: [...], jobs: [...] }` (either list may be
 * absent). The items are not checked here: the admin API checks each one and the report says which
 * failed. A file that cannot be read or has the wrong shape is a usage error naming the file.
 *
 * @example
 * // schedules.yaml
 * // schedules:
 * //   - { id: nightly, task: send-report, trigger: { type: cron, expression: '0 9 * * *' } }
 * // jobs:
 * //   - { task: cleanup, payload: { dir: /tmp/a } }
 */
export async function readImportFile(path: string, cwd: string): Promise<ImportFile> {
  const content = await readStructuredFile(path, cwd);
  if (typeof content !== 'object' || content === null || Array.isArray(content)) {
    throw new UsageError(`${path}: must hold an object with a "schedules" and/or a "jobs" list`);
  }
  const record = content as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => !(SECTIONS as readonly string[]).includes(key));
  if (unknown.length > 0) {
    throw new UsageError(
      `${path}: unknown key${unknown.length === 1 ? '' : 's'} ${unknown.map((key) => `"${key}"`).join(', ')}; allowed: "schedules", "jobs"`,
    );
  }
  const listOf = (section: (typeof SECTIONS)[number]): unknown[] => {
    const items = record[section] ?? [];
    if (!Array.isArray(items)) throw new UsageError(`${path}: "${section}" must be a list`);
    return items;
  };
  const file = { schedules: listOf('schedules'), jobs: listOf('jobs') };
  if (file.schedules.length === 0 && file.jobs.length === 0) {
    throw new UsageError(`${path}: holds no schedules and no jobs`);
  }
  return file;
}

/** The content of a `.json`, `.yaml` or `.yml` file; a usage error naming the file when it cannot be read or parsed. */
export async function readStructuredFile(path: string, cwd: string): Promise<unknown> {
  const format = formatOf(path);
  let text: string;
  try {
    text = await readFile(resolve(cwd, path), 'utf8');
  } catch (error) {
    throw new UsageError(
      `${path}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  return parseContent(text, format, path);
}

function formatOf(path: string): 'json' | 'yaml' {
  const extension = extname(path).toLowerCase();
  if (extension === '.json') return 'json';
  if (extension === '.yaml' || extension === '.yml') return 'yaml';
  throw new UsageError(`${path}: give a .json, .yaml or .yml file`);
}

function parseContent(text: string, format: 'json' | 'yaml', path: string): unknown {
  try {
    return format === 'json' ? JSON.parse(text) : parseYaml(text, { prettyErrors: true });
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new UsageError(`${path}: not valid ${format.toUpperCase()} (${message})`);
  }
}
