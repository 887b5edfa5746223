/**
 * Run by `inspectTaskTimeouts` in a child process (`node --import tsx inspect-tasks.ts <files…>`):
 * imports each task module and prints, as the last line of stdout, a JSON object mapping each file to
 * its `timeoutSeconds` (and its `maxRunningJobs` and `rateLimit`, for the tick, and whether it declares
 * schedules) or to the reason it is not a task. Imports nothing of the project: it reads the
 * `defineTask(...)` result's public shape (`kind: 'sundial-task'`, `timeoutSeconds`, `maxRunningJobs`,
 * `rateLimit`, `schedules`).
 */
import { pathToFileURL } from 'node:url';

interface Inspected {
  timeoutSeconds?: number;
  maxRunningJobs?: unknown;
  rateLimit?: unknown;
  declaresSchedules?: boolean;
  error?: string;
}

const results: Record<string, Inspected> = {};
for (const file of process.argv.slice(2)) {
  try {
    const module = (await import(pathToFileURL(file).href)) as { default?: unknown };
    results[file] = describe(module.default);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // defineTask refused an option it does not know (TaskOptionsError): the message names it and the file is named by the caller
    const refused = error instanceof Error && error.name === 'TaskOptionsError';
    results[file] = { error: refused ? message : `failed to import: ${message}` };
  }
}
process.stdout.write(`\n${JSON.stringify(results)}\n`, () => {
  // A task module may hold the event loop open (a timer, a client): the answer is out, so stop here.
  process.exit(0);
});

function describe(exported: unknown): Inspected {
  if (exported === undefined) return { error: 'has no default export; export default defineTask({ ... })' };
  const task = exported as {
    kind?: unknown;
    timeoutSeconds?: unknown;
    maxRunningJobs?: unknown;
    rateLimit?: unknown;
    schedules?: unknown;
  };
  if (typeof exported !== 'object' || exported === null || task.kind !== 'sundial-task') {
    return { error: 'the default export is not a defineTask(...) result' };
  }
  if (
    typeof task.timeoutSeconds !== 'number' ||
    !Number.isInteger(task.timeoutSeconds) ||
    task.timeoutSeconds < 1
  ) {
    return { error: `timeoutSeconds must be a positive integer, got ${String(task.timeoutSeconds)}` };
  }
  return {
    timeoutSeconds: task.timeoutSeconds,
    maxRunningJobs: task.maxRunningJobs ?? null,
    rateLimit: task.rateLimit ?? null,
    declaresSchedules: !Array.isArray(task.schedules) || task.schedules.length > 0,
  };
}
