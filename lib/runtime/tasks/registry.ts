import { isTaskDefinition, type TaskDefinition, taskDefinitionProblems } from './define-task';

/** A task found in `functions/`: its id (the file name) and its definition. */
export interface RegisteredTask {
  id: string;
  definition: TaskDefinition;
  /** The module it came from, relative to the working directory (`functions/send-report.ts`). */
  file?: string;
}

/** The tasks a worker can run. A job's task id is only ever looked up here, never used as a path. */
export interface TaskRegistry {
  get(id: string): RegisteredTask | undefined;
  ids(): string[];
  all(): RegisteredTask[];
}

/** One or more task modules are invalid; lists every problem, each naming its file. */
export class TaskRegistryError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid task modules:\n  ${problems.join('\n  ')}`);
    this.name = 'TaskRegistryError';
  }
}

export const TASK_ID_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** A module to register: the task id, the file it came from (for messages) and the module namespace. */
export interface TaskModuleEntry {
  id: string;
  file: string;
  module: unknown;
}

/**
 * Builds a registry from modules that are already imported. This is what a generated Lambda entry calls:
 *
 * @example
 * import * as sendReport from '../functions/send-report';
 * import * as httpPing from '../functions/http-ping';
 * const registry = staticTaskRegistry({ 'send-report': sendReport, 'http-ping': httpPing });
 */
export function staticTaskRegistry(modules: Record<string, unknown>): TaskRegistry {
  return registryFromEntries(
    Object.entries(modules).map(([id, module]) => ({ id, file: `functions/${id}.ts`, module })),
  );
}

/** Validates every entry and throws one `TaskRegistryError` listing all problems; otherwise the registry. */
export function registryFromEntries(entries: readonly TaskModuleEntry[]): TaskRegistry {
  const problems: string[] = [];
  const tasks = new Map<string, RegisteredTask>();
  for (const entry of entries) {
    const entryProblems = moduleProblems(entry);
    if (tasks.has(entry.id)) entryProblems.push(`task id '${entry.id}' is defined by more than one file`);
    if (entryProblems.length > 0) {
      problems.push(...entryProblems.map((problem) => `${entry.file}: ${problem}`));
      continue;
    }
    const definition = (entry.module as { default: TaskDefinition }).default;
    tasks.set(entry.id, { id: entry.id, definition, file: entry.file });
  }
  if (problems.length > 0) throw new TaskRegistryError(problems);
  const sorted = [...tasks.values()].sort((a, b) => a.id.localeCompare(b.id));
  return {
    get: (id) => tasks.get(id),
    ids: () => sorted.map((task) => task.id),
    all: () => [...sorted],
  };
}

function moduleProblems(entry: TaskModuleEntry): string[] {
  if (!TASK_ID_PATTERN.test(entry.id)) {
    return [`task id '${entry.id}' must be kebab-case (lower-case letters and digits, words joined by '-')`];
  }
  const exported = (entry.module as { default?: unknown } | null)?.default;
  if (exported === undefined) return ['has no default export; export default defineTask({ ... })'];
  if (!isTaskDefinition(exported)) return ['the default export is not a defineTask(...) result'];
  return taskDefinitionProblems(exported);
}
