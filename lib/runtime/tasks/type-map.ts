import { readFile, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { TaskRegistry } from './registry';

/** The task map of the typed client, beside the task modules (the loaders skip `.d.ts` files). */
export const TASK_TYPES_FILE = 'tasks.d.ts';

/**
 * The source of `functions/tasks.d.ts`: each task module's default export by its id, the map the
 * typed client (`sundial/client`) reads task ids, payloads and results from.
 *
 * @example
 * taskTypesSource([{ id: 'send-report', file: 'functions/send-report.ts' }]);
 * // import type task_send_report from './send-report';
 * // export type SundialTasks = { 'send-report': typeof task_send_report; };
 */
export function taskTypesSource(tasks: readonly { id: string; file?: string }[]): string {
  const sorted = [...tasks].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const binding = (id: string) => `task_${id.replaceAll('-', '_')}`;
  return [
    '// Written by npm start from the task modules in this folder; do not edit (a test checks it is current).',
    ...sorted.map((task) => `import type ${binding(task.id)} from '${specifier(task.id, task.file)}';`),
    '',
    '/** The tasks of this folder, for the typed client: `new SundialClient<SundialTasks>(…)`. */',
    'export type SundialTasks = {',
    ...sorted.map((task) => `  '${task.id}': typeof ${binding(task.id)};`),
    '};',
    '',
  ].join('\n');
}

/** `./send-report` for a TypeScript or JavaScript module, `./x.mjs` for an ES module file. */
function specifier(id: string, file: string | undefined): string {
  const extension = file ? extname(file) : '.ts';
  return extension === '.mts' || extension === '.mjs' ? `./${id}.mjs` : `./${id}`;
}

/** Writes `tasks.d.ts` into `dir` when it differs from the registry's; true when it wrote. */
export async function writeTaskTypes(dir: string, registry: TaskRegistry): Promise<boolean> {
  const path = join(dir, TASK_TYPES_FILE);
  const source = taskTypesSource(
    registry.all().map((task) => ({ id: task.id, ...(task.file && { file: task.file }) })),
  );
  const current = await readFile(path, 'utf8').catch(() => undefined);
  if (current === source) return false;
  await writeFile(path, source);
  return true;
}
