import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defineTask } from '../../../lib/runtime/tasks/define-task';
import { loadTaskRegistryFromDirectory } from '../../../lib/runtime/tasks/load-directory';
import { staticTaskRegistry, TaskRegistryError } from '../../../lib/runtime/tasks/registry';

const defineTaskPath = resolve(import.meta.dirname, '../../../lib/runtime/tasks/define-task.ts');

function problemsOf(build: () => unknown): readonly string[] {
  try {
    build();
  } catch (error) {
    if (error instanceof TaskRegistryError) return error.problems;
    throw error;
  }
  throw new Error('expected a TaskRegistryError');
}

describe('task registry', () => {
  it('registers modules by id with every default filled in', () => {
    // Act
    const registry = staticTaskRegistry({ 'send-report': { default: defineTask({ handler: () => null }) } });

    // Assess
    expect(registry.ids()).toEqual(['send-report']);
    expect(registry.get('send-report')?.definition).toMatchObject({
      maxRunningJobs: null,
      timeoutSeconds: 60,
      retry: { maxAttempts: 3, backoffSeconds: 2, maxBackoffSeconds: 300 },
      resultTtlSeconds: null, // the deployment's SUNDIAL_DEFAULT_RESULT_TTL_SECONDS
      events: 'failures',
    });
    expect(registry.get('../send-report')).toBeUndefined();
  });

  it('lists every invalid option of every module at once, each naming its file', () => {
    // Act
    const problems = problemsOf(() =>
      staticTaskRegistry({
        'bad-options': {
          default: defineTask({
            handler: () => null,
            maxRunningJobs: 0,
            timeoutSeconds: 901,
            retry: { maxAttempts: 1.5, backoffSeconds: 10, maxBackoffSeconds: 5 },
            resultTtlSeconds: 0,
            events: 'some' as never,
          }),
        },
        'no-default': { handler: () => null },
        'not-a-task': { default: { handler: () => null } },
        Bad_Name: { default: defineTask({ handler: () => null }) },
      }),
    );

    // Assess
    expect(problems).toEqual([
      'functions/bad-options.ts: maxRunningJobs must be a positive integer, got 0',
      'functions/bad-options.ts: timeoutSeconds must be an integer from 1 to 900, got 901',
      'functions/bad-options.ts: retry.maxAttempts must be a positive integer (1 = no retries), got 1.5',
      'functions/bad-options.ts: retry.maxBackoffSeconds must be a number >= retry.backoffSeconds (10), got 5',
      'functions/bad-options.ts: resultTtlSeconds must be a positive integer, got 0',
      "functions/bad-options.ts: events must be one of none, failures, all, got 'some'",
      'functions/no-default.ts: has no default export; export default defineTask({ ... })',
      'functions/not-a-task.ts: the default export is not a defineTask(...) result',
      "functions/Bad_Name.ts: task id 'Bad_Name' must be kebab-case (lower-case letters and digits, words joined by '-')",
    ]);
  });

  it('loads every task module of a folder, and picks up a new one without other changes', async () => {
    // Prepare
    const dir = mkdtempSync(join(tmpdir(), 'sundial-functions-'));
    const task = (body: string) =>
      `import { defineTask } from ${JSON.stringify(defineTaskPath)};\nexport default defineTask({ ${body} });\n`;
    writeFileSync(join(dir, 'alpha.ts'), task('handler: () => 1'));
    writeFileSync(join(dir, 'types.d.ts'), 'export type X = 1;\n');
    writeFileSync(join(dir, 'alpha.test.ts'), 'throw new Error("tests are not tasks");\n');

    // Act
    const before = await loadTaskRegistryFromDirectory(dir);
    writeFileSync(join(dir, 'beta-two.ts'), task('handler: () => 2, maxRunningJobs: 3'));
    const after = await loadTaskRegistryFromDirectory(dir);

    // Assess
    expect(before.ids()).toEqual(['alpha']);
    expect(after.ids()).toEqual(['alpha', 'beta-two']);
    expect(after.get('beta-two')?.definition.maxRunningJobs).toBe(3);
  });

  it('fails loading a folder with a module that throws on import or has a bad name, naming each file', async () => {
    // Prepare
    const dir = mkdtempSync(join(tmpdir(), 'sundial-functions-'));
    writeFileSync(join(dir, 'broken.ts'), 'throw new Error("missing API key");\n');
    writeFileSync(join(dir, 'CamelCase.ts'), 'export default 1;\n');

    // Act
    const error = await loadTaskRegistryFromDirectory(dir).catch((caught: unknown) => caught);

    // Assess
    expect(error).toBeInstanceOf(TaskRegistryError);
    const problems = (error as TaskRegistryError).problems.join('\n');
    expect(problems).toMatch(/broken\.ts: failed to import: missing API key/);
    expect(problems).toMatch(/CamelCase\.ts: task id 'CamelCase' must be kebab-case/);
  });

  it("loads the project's example tasks from functions/", async () => {
    // Act
    const registry = await loadTaskRegistryFromDirectory(resolve(import.meta.dirname, '../../../functions'));

    // Assess
    expect(registry.ids()).toEqual(expect.arrayContaining(['http-ping', 'send-report', 'slow-task']));
    expect(registry.get('slow-task')?.definition.maxRunningJobs).toBe(2);
  });
});
