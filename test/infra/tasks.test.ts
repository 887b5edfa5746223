import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENTRIES_DIR, entrySource, writeEntry } from '../../lib/infra/entries';
import { PROJECT_ROOT } from '../../lib/infra/sundial';
import { discoverTasks, inspectTaskTimeouts } from '../../lib/infra/tasks';
import { BAD_FUNCTIONS, FIXTURE_FUNCTIONS, SYNTH_TIMEOUT_MS } from './support';

describe('discoverTasks', () => {
  it('lists the task modules of the folder by id, sorted', () => {
    const { tasks, problems } = discoverTasks(FIXTURE_FUNCTIONS, PROJECT_ROOT);

    expect(tasks).toEqual([
      { id: 'long-report', path: join(FIXTURE_FUNCTIONS, 'long-report.ts') },
      { id: 'quick-task', path: join(FIXTURE_FUNCTIONS, 'quick-task.ts') },
    ]);
    expect(problems).toEqual([]);
  });

  it('names a file whose name is not a kebab-case task id', () => {
    const { tasks, problems } = discoverTasks(BAD_FUNCTIONS, PROJECT_ROOT);

    expect(tasks.map((task) => task.id)).toEqual([
      'fine-task',
      'misspelt-option',
      'no-default',
      'throws-on-import',
      'too-slow',
    ]);
    expect(problems).toEqual([
      "test/infra/fixtures/bad-functions/Send_Report.ts: task id 'Send_Report' must be kebab-case (lower-case letters and digits, words joined by '-'); rename the file",
    ]);
  });

  it('names a task id defined by two files (say a leftover .js beside its .ts), as the runtime does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sundial-tasks-'));
    const body = "export default { kind: 'sundial-task', timeoutSeconds: 10 };\n";
    writeFileSync(join(dir, 'send-report.ts'), body);
    writeFileSync(join(dir, 'send-report.js'), body);

    const { tasks, problems } = discoverTasks(dir, PROJECT_ROOT);

    expect(tasks.map((task) => task.id)).toEqual(['send-report']);
    expect(problems).toEqual([
      "task id 'send-report' is defined by more than one file: send-report.js, send-report.ts; keep one",
    ]);
    rmSync(dir, { recursive: true });
  });

  it('reports a missing folder', () => {
    expect(discoverTasks('/nonexistent/functions', PROJECT_ROOT).problems).toEqual([
      "functionsDir '/nonexistent/functions' does not exist",
    ]);
  });
});

describe('inspectTaskTimeouts', () => {
  it(
    'reads each task timeout in a child process, and names the modules that are not tasks',
    () => {
      const { tasks } = discoverTasks(BAD_FUNCTIONS, PROJECT_ROOT);

      const inspection = inspectTaskTimeouts(tasks, PROJECT_ROOT);

      expect(inspection.timeouts).toEqual([
        { id: 'fine-task', timeoutSeconds: 60 },
        { id: 'too-slow', timeoutSeconds: 890 },
      ]);
      // Only tasks with a limit are listed for the tick (none of these has one)
      expect(inspection.limits).toEqual({});
      expect(
        inspectTaskTimeouts(discoverTasks(FIXTURE_FUNCTIONS, PROJECT_ROOT).tasks, PROJECT_ROOT).limits,
      ).toEqual({
        'quick-task': { maxRunningJobs: 2, rateLimit: null },
      });
      expect(inspection.problems).toEqual([
        "test/infra/fixtures/bad-functions/misspelt-option.ts: unknown option 'maxRuningJobs': did you mean 'maxRunningJobs'? (defineTask knows handler, payloadSchema, maxRunningJobs, rateLimit, misfireGraceSeconds, timeoutSeconds, retry, resultTtlSeconds, events, schedules)",
        'test/infra/fixtures/bad-functions/no-default.ts: has no default export; export default defineTask({ ... })',
        'test/infra/fixtures/bad-functions/throws-on-import.ts: failed to import: SECRET_NAME is not set',
      ]);
    },
    SYNTH_TIMEOUT_MS,
  );

  it('starts no process when there are no tasks', () => {
    expect(inspectTaskTimeouts([], PROJECT_ROOT)).toEqual({
      timeouts: [],
      limits: {},
      declaresSchedules: false,
      problems: [],
    });
  });
});

describe('generated Lambda entries', () => {
  const { tasks } = discoverTasks(FIXTURE_FUNCTIONS, PROJECT_ROOT);

  it('imports every task module and builds the worker handler with a static registry', () => {
    const source = entrySource('worker', tasks, PROJECT_ROOT);
    const root = relative(join(PROJECT_ROOT, ENTRIES_DIR), PROJECT_ROOT);
    const fixtures = relative(join(PROJECT_ROOT, ENTRIES_DIR), FIXTURE_FUNCTIONS);

    expect(source.split('\n').slice(1)).toEqual([
      `import * as task_long_report from "${fixtures}/long-report.ts";`,
      `import * as task_quick_task from "${fixtures}/quick-task.ts";`,
      `import { staticTaskRegistry } from "${root}/lib/runtime/tasks/registry.ts";`,
      `import { createWorkerLambdaHandler } from "${root}/lib/runtime/lambda/worker.ts";`,
      `import { runtimeDependencies } from "${root}/lib/runtime/dependencies.ts";`,
      '',
      `export const handler = createWorkerLambdaHandler(runtimeDependencies, staticTaskRegistry({ "long-report": task_long_report, "quick-task": task_quick_task }));`,
      '',
    ]);
  });

  it('builds the admin handler from the same registry', () => {
    expect(entrySource('admin', tasks, PROJECT_ROOT)).toContain(
      'export const handler = createAdminLambdaHandler(runtimeDependencies, staticTaskRegistry({ "long-report": task_long_report, "quick-task": task_quick_task }));',
    );
  });

  it('writes the entry inside the project, named by its content, and writes the same content once', () => {
    const first = writeEntry('worker', tasks, PROJECT_ROOT);
    const second = writeEntry('worker', tasks, PROJECT_ROOT);

    expect(first).toBe(second);
    expect(relative(PROJECT_ROOT, first)).toMatch(/^\.cache\/sundial-entries\/worker-[0-9a-f]{16}\.ts$/);
    expect(readFileSync(first, 'utf8')).toBe(entrySource('worker', tasks, PROJECT_ROOT));
  });
});
