import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import type { TaskTimeout } from './settings';

/** A task module found in the functions folder. */
export interface TaskFile {
  /** The task id: the file name without its extension. */
  readonly id: string;
  /** Absolute path of the module. */
  readonly path: string;
}

export interface TaskDiscovery {
  readonly tasks: readonly TaskFile[];
  readonly problems: readonly string[];
}

/** The same rule as the runtime's registry (`TASK_ID_PATTERN`): kebab-case ids. */
const TASK_ID = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const MODULE_EXTENSIONS = new Set(['.ts', '.mts', '.js', '.mjs']);

/**
 * Lists the task modules of `dir` (not its subfolders; `.d.ts` and `*.test.*` files are skipped), as
 * the runtime's directory loader does. A file whose name is not a kebab-case id is a problem naming it.
 */
export function discoverTasks(dir: string, projectRoot: string): TaskDiscovery {
  if (!existsSync(dir)) return { tasks: [], problems: [`functionsDir '${dir}' does not exist`] };
  const tasks: TaskFile[] = [];
  const problems: string[] = [];
  const names = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && isTaskModule(entry.name))
    .map((entry) => entry.name)
    .sort();
  const files = new Map<string, string>();
  for (const name of names) {
    const id = name.slice(0, name.length - extname(name).length);
    const path = join(dir, name);
    const other = files.get(id);
    if (other !== undefined) {
      // As the runtime's registry refuses it: one of the two would silently win in the bundle
      problems.push(`task id '${id}' is defined by more than one file: ${other}, ${name}; keep one`);
      continue;
    }
    files.set(id, name);
    if (!TASK_ID.test(id)) {
      problems.push(
        `${relative(projectRoot, path)}: task id '${id}' must be kebab-case (lower-case letters and digits, words joined by '-'); rename the file`,
      );
      continue;
    }
    tasks.push({ id, path });
  }
  return { tasks, problems };
}

function isTaskModule(name: string): boolean {
  return MODULE_EXTENSIONS.has(extname(name)) && !name.endsWith('.d.ts') && !/\.test\.[mc]?[jt]s$/.test(name);
}

export interface TaskInspection {
  readonly timeouts: readonly TaskTimeout[];
  /** The tasks with a `maxRunningJobs` or a `rateLimit`, by id (the tick's `SUNDIAL_TASK_LIMITS`). */
  readonly limits: Readonly<Record<string, { maxRunningJobs: unknown; rateLimit: unknown }>>;
  /** Whether a task declares schedules in code (`schedules` in `defineTask`). */
  readonly declaresSchedules: boolean;
  readonly problems: readonly string[];
}

interface InspectedModule {
  timeoutSeconds?: number;
  maxRunningJobs?: unknown;
  rateLimit?: unknown;
  declaresSchedules?: boolean;
  error?: string;
}

/**
 * Reads each task's `timeoutSeconds` by importing the modules in a child Node process (through tsx),
 * so user code never runs inside the CDK app and a module that throws on import is reported by name.
 * The child sees `SUNDIAL_TASK_INSPECTION=1`: a module with import-time side effects can skip them.
 * Executing the modules (rather than parsing them) reads `timeoutSeconds` however it is written
 * (a constant, an import, an expression), the same way the worker will.
 */
export function inspectTaskTimeouts(tasks: readonly TaskFile[], projectRoot: string): TaskInspection {
  if (tasks.length === 0) return { timeouts: [], limits: {}, declaresSchedules: false, problems: [] };
  const script = join(import.meta.dirname, 'inspect-tasks.ts');
  const ran = runTaskScript(
    script,
    tasks.map((task) => task.path),
    projectRoot,
  );
  if ('error' in ran) {
    return {
      timeouts: [],
      limits: {},
      declaresSchedules: false,
      problems: [`could not read the task modules in a child process: ${ran.error}`],
    };
  }
  const inspected = ran.answer as Record<string, InspectedModule>;
  const timeouts: TaskTimeout[] = [];
  const limits: Record<string, { maxRunningJobs: unknown; rateLimit: unknown }> = {};
  const problems: string[] = [];
  for (const task of tasks) {
    const result = inspected[task.path];
    const file = relative(projectRoot, task.path);
    if (!result || result.error !== undefined) {
      problems.push(`${file}: ${result?.error ?? 'was not inspected'}`);
    } else if (result.timeoutSeconds !== undefined) {
      const maxRunningJobs = result.maxRunningJobs ?? null;
      timeouts.push({
        id: task.id,
        timeoutSeconds: result.timeoutSeconds,
        ...(typeof maxRunningJobs === 'number' && { maxRunningJobs }),
      });
      const rateLimit = result.rateLimit ?? null;
      if (maxRunningJobs !== null || rateLimit !== null) limits[task.id] = { maxRunningJobs, rateLimit };
    }
  }
  const declaresSchedules = tasks.some((task) => inspected[task.path]?.declaresSchedules === true);
  return { timeouts, limits, declaresSchedules, problems };
}

/**
 * Runs `script` over the task modules in a child Node process (through tsx), so user code never runs
 * inside the CDK app, and returns the JSON of its last line of stdout (task modules may log before
 * it), or what went wrong. The child sees `SUNDIAL_TASK_INSPECTION=1`.
 */
export function runTaskScript(
  script: string,
  args: readonly string[],
  projectRoot: string,
  input = '',
): { answer: unknown } | { error: string } {
  try {
    const output = execFileSync(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: projectRoot,
      encoding: 'utf8',
      timeout: 60_000,
      input,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, SUNDIAL_TASK_INSPECTION: '1' },
    });
    const lines = output.trim().split('\n');
    return { answer: JSON.parse(lines[lines.length - 1] ?? '{}') as unknown };
  } catch (error) {
    return { error: (error as { stderr?: string }).stderr?.trim() || String(error) };
  }
}
