import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../lib/runtime/config';
import { defineTask } from '../../lib/runtime/sdk';
import { taskLimitsOf } from '../../lib/runtime/task-limits';
import { staticTaskRegistry } from '../../lib/runtime/tasks/registry';

const REQUIRED = {
  SUNDIAL_TABLE_NAME: 'sundial',
  SUNDIAL_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/jobs',
};

describe('runtime config', () => {
  it('applies the documented defaults when only the required variables are set', () => {
    expect(readConfig(REQUIRED)).toMatchObject({
      tableName: 'sundial',
      eventBusName: null,
      shards: 16,
      dispatchers: 8,
      dispatcherFunctionName: null,
      tickBudgetMs: 40_000,
      sendPhaseToleranceMs: 50,
      logLevel: 'info',
      metricsNamespace: 'Sundial',
      deadLetterQueueUrl: null,
      criticalQueueUrl: null,
      defaultResultTtlSeconds: 604_800,
    });
  });

  it('keeps the tick budget within what a note chunk holds, and no more dispatchers than shards', () => {
    expect(() => readConfig({ ...REQUIRED, SUNDIAL_TICK_BUDGET_MS: '50000' })).toThrow(
      "SUNDIAL_TICK_BUDGET_MS must be an integer from 1000 to 40000, got '50000'",
    );
    expect(() => readConfig({ ...REQUIRED, SUNDIAL_SHARDS: '4' })).toThrow(
      'SUNDIAL_DISPATCHERS (8) must be at most SUNDIAL_SHARDS (4): each dispatcher reads whole shards',
    );
    expect(readConfig({ ...REQUIRED, SUNDIAL_SHARDS: '4', SUNDIAL_DISPATCHERS: '4' })).toMatchObject({
      shards: 4,
      dispatchers: 4,
    });
  });

  it('reads the queue for critical jobs the stack sets', () => {
    expect(
      readConfig({
        ...REQUIRED,
        SUNDIAL_CRITICAL_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/critical',
      }),
    ).toMatchObject({ criticalQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/critical' });
  });

  it('reads the DLQ url and the default result TTL the stack sets', () => {
    expect(
      readConfig({
        ...REQUIRED,
        SUNDIAL_DEAD_LETTER_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/jobs-dlq',
        SUNDIAL_DEFAULT_RESULT_TTL_SECONDS: '3600',
      }),
    ).toMatchObject({
      deadLetterQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/jobs-dlq',
      defaultResultTtlSeconds: 3600,
    });
    expect(() => readConfig({ ...REQUIRED, SUNDIAL_SEND_PHASE_TOLERANCE_MS: '1001' })).toThrow(
      /SUNDIAL_SEND_PHASE_TOLERANCE_MS must be an integer from 0 to 1000/,
    );
    expect(() => readConfig({ ...REQUIRED, SUNDIAL_DEFAULT_RESULT_TTL_SECONDS: '0' })).toThrow(
      /SUNDIAL_DEFAULT_RESULT_TTL_SECONDS must be an integer from 1 to/,
    );
  });

  it('reports every missing or invalid variable at once, by name', () => {
    // Act
    let error: unknown;
    try {
      readConfig({ SUNDIAL_DISPATCHERS: '0', SUNDIAL_SHARDS: 'many', SUNDIAL_LOG_LEVEL: 'loud' });
    } catch (caught) {
      error = caught;
    }

    // Assess
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'SUNDIAL_TABLE_NAME is required',
      'SUNDIAL_QUEUE_URL is required',
      "SUNDIAL_SHARDS must be an integer from 1 to 1000, got 'many'",
      "SUNDIAL_DISPATCHERS must be an integer from 1 to 1000, got '0'",
      "SUNDIAL_LOG_LEVEL must be one of debug, info, warn, error, got 'loud'",
    ]);
  });
});

describe('runtime config: failure destinations', () => {
  it('reads a queue or a bus per task, and none by default', () => {
    const config = readConfig({
      ...REQUIRED,
      SUNDIAL_FAILURE_DESTINATIONS: JSON.stringify({
        'send-report': { queueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/failed-reports' },
        cleanup: { eventBusName: 'ops' },
      }),
    });

    expect(config.failureDestinations).toEqual({
      'send-report': { queueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/failed-reports' },
      cleanup: { eventBusName: 'ops' },
    });
    expect(readConfig(REQUIRED).failureDestinations).toEqual({});
  });

  it('names the variable and the task of every unusable destination', () => {
    const problems = (text: string) => problemsWith('SUNDIAL_FAILURE_DESTINATIONS', text);

    expect(problems('not json')).toEqual(['SUNDIAL_FAILURE_DESTINATIONS must be a JSON object']);
    expect(problems(JSON.stringify({ a: { queueUrl: 'u', eventBusName: 'b' }, b: 'q' }))).toEqual([
      `SUNDIAL_FAILURE_DESTINATIONS: task 'a' needs { "queueUrl": "<url>" } or { "eventBusName": "<name or ARN>" }`,
      `SUNDIAL_FAILURE_DESTINATIONS: task 'b' needs { "queueUrl": "<url>" } or { "eventBusName": "<name or ARN>" }`,
    ]);
  });
});

describe('runtime config: task limits as deployed', () => {
  it('reads each limited task’s maxRunningJobs and rateLimit, and null when unset', () => {
    const config = readConfig({
      ...REQUIRED,
      SUNDIAL_TASK_LIMITS: JSON.stringify({
        'send-report': { maxRunningJobs: 3, rateLimit: null },
        crawl: { maxRunningJobs: null, rateLimit: { max: 10, perSeconds: 60 } },
      }),
    });

    expect(config.taskLimits).toEqual(
      new Map([
        ['send-report', { maxRunningJobs: 3, rateLimit: null }],
        ['crawl', { maxRunningJobs: null, rateLimit: { max: 10, perSeconds: 60 } }],
      ]),
    );
    expect(readConfig(REQUIRED).taskLimits).toBeNull();
  });

  it('lists a registry’s limited tasks as the stack does (the local platform’s tick uses it)', () => {
    const registry = staticTaskRegistry({
      free: { default: defineTask({ handler: () => null }) },
      capped: { default: defineTask({ maxRunningJobs: 2, handler: () => null }) },
      paced: { default: defineTask({ rateLimit: { max: 5, perSeconds: 60 }, handler: () => null }) },
    });

    expect(taskLimitsOf(registry)).toEqual(
      new Map([
        ['capped', { maxRunningJobs: 2, rateLimit: null }],
        ['paced', { maxRunningJobs: null, rateLimit: { max: 5, perSeconds: 60 } }],
      ]),
    );
  });

  it('names the variable and the task of every unusable entry', () => {
    const problems = (text: string) => problemsWith('SUNDIAL_TASK_LIMITS', text);
    const needs = (task: string) =>
      `SUNDIAL_TASK_LIMITS: task '${task}' needs { "maxRunningJobs": <positive integer or null>, "rateLimit": { "max", "perSeconds" } or null }`;

    expect(problems('[1]')).toEqual(['SUNDIAL_TASK_LIMITS must be a JSON object from task id to its limits']);
    expect(
      problems(JSON.stringify({ a: { maxRunningJobs: 0 }, b: { rateLimit: { max: 1 } }, c: 7 })),
    ).toEqual([needs('a'), needs('b'), needs('c')]);
  });
});

/** The problems `readConfig` reports with `variable` set to `text` (none: an empty list). */
function problemsWith(variable: string, text: string): readonly string[] {
  try {
    readConfig({ ...REQUIRED, [variable]: text });
  } catch (error) {
    return (error as ConfigError).problems;
  }
  return [];
}
