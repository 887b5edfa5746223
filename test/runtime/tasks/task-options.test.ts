import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defineTask, TASK_DEFAULTS } from '../../../lib/runtime/tasks/define-task';
import { loadTaskRegistryFromDirectory } from '../../../lib/runtime/tasks/load-directory';
import { TASK_OPTIONS, TaskOptionsError } from '../../../lib/runtime/tasks/task-options';

const KNOWN =
  '(defineTask knows handler, payloadSchema, maxRunningJobs, rateLimit, misfireGraceSeconds, timeoutSeconds, retry, resultTtlSeconds, events, schedules)';

/** The message of the error `defineTask` throws for these options. */
function refusal(options: Record<string, unknown>): string {
  try {
    defineTask({ handler: () => null, ...options });
  } catch (error) {
    if (error instanceof TaskOptionsError) return error.message;
    throw error;
  }
  throw new Error('expected a TaskOptionsError');
}

describe('task options are checked whole', () => {
  it('refuses a misspelt option, naming it and the option meant', () => {
    expect(refusal({ maxRuningJobs: 1 })).toBe(
      `unknown option 'maxRuningJobs': did you mean 'maxRunningJobs'? ${KNOWN}`,
    );
    expect(refusal({ timeout: 30 })).toBe(
      `unknown option 'timeout': did you mean 'timeoutSeconds'? ${KNOWN}`,
    );
    expect(refusal({ misfire_grace_seconds: 5 })).toBe(
      `unknown option 'misfire_grace_seconds': did you mean 'misfireGraceSeconds'? ${KNOWN}`,
    );
  });

  it('refuses an option of a newer version, naming the closest known one', () => {
    expect(refusal({ concurrency: [{ key: 'tenant', max: 1 }] })).toBe(
      `unknown option 'concurrency' (the closest known one is 'retry') ${KNOWN}`,
    );
  });

  it('checks the fields of retry and rateLimit too, and reports every problem at once', () => {
    expect(refusal({ retry: { maxAtempts: 5 }, rateLimit: { max: 5, per: 1 }, maxRuningJobs: 1 })).toBe(
      [
        "unknown option 'retry.maxAtempts': did you mean 'retry.maxAttempts'?",
        "unknown option 'rateLimit.per': did you mean 'rateLimit.perSeconds'?",
        `unknown option 'maxRuningJobs': did you mean 'maxRunningJobs'? ${KNOWN}`,
      ].join('; '),
    );
  });

  it('accepts every option it knows', () => {
    const definition = defineTask({
      handler: () => null,
      payloadSchema: undefined,
      maxRunningJobs: 2,
      rateLimit: { max: 5, perSeconds: 1 },
      misfireGraceSeconds: 10,
      timeoutSeconds: 30,
      retry: { maxAttempts: 5, backoffSeconds: 1, maxBackoffSeconds: 10 },
      resultTtlSeconds: 60,
      events: 'all',
    });

    expect(definition).toMatchObject({ maxRunningJobs: 2, timeoutSeconds: 30, retry: { maxAttempts: 5 } });
    expect([...TASK_OPTIONS.retry].sort()).toEqual(Object.keys(TASK_DEFAULTS.retry).sort());
  });

  it('keeps a module with an unknown option from loading, naming its file', async () => {
    // Prepare
    const defineTaskPath = resolve(import.meta.dirname, '../../../lib/runtime/tasks/define-task.ts');
    const dir = mkdtempSync(join(tmpdir(), 'sundial-functions-'));
    writeFileSync(
      join(dir, 'limited.ts'),
      `import { defineTask } from ${JSON.stringify(defineTaskPath)};\nexport default defineTask({ maxRuningJobs: 1, handler: () => 1 });\n`,
    );

    // Act
    const loading = loadTaskRegistryFromDirectory(dir);

    // Assess
    await expect(loading).rejects.toThrow(
      `limited.ts: unknown option 'maxRuningJobs': did you mean 'maxRunningJobs'? ${KNOWN}`,
    );
  });
});
