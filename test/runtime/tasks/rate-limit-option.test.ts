import { describe, expect, it } from 'vitest';
import { defineTask, taskDefinitionProblems } from '../../../lib/runtime/tasks/define-task';

describe('the rateLimit task option', () => {
  it('is carried into the definition, and absent means unlimited', () => {
    // Act
    const limited = defineTask({ handler: () => null, rateLimit: { max: 5, perSeconds: 1 } });
    const unlimited = defineTask({ handler: () => null });

    // Assess
    expect(limited.rateLimit).toEqual({ max: 5, perSeconds: 1 });
    expect(taskDefinitionProblems(limited)).toEqual([]);
    expect(unlimited.rateLimit).toBeNull();
  });

  it('names the field and what is allowed for every bad value', () => {
    // Act
    const problemsOf = (rateLimit: unknown) =>
      taskDefinitionProblems(defineTask({ handler: () => null, rateLimit: rateLimit as never }));

    // Assess
    expect(problemsOf({ max: 0, perSeconds: 1 })).toEqual([
      'rateLimit.max must be an integer from 1 to 10000, got 0',
    ]);
    expect(problemsOf({ max: 5, perSeconds: 0.5 })).toEqual([
      'rateLimit.perSeconds must be an integer from 1 to 86400, got 0.5',
    ]);
    expect(problemsOf({ max: 10_001, perSeconds: 86_401 })).toEqual([
      'rateLimit.max must be an integer from 1 to 10000, got 10001',
      'rateLimit.perSeconds must be an integer from 1 to 86400, got 86401',
    ]);
    expect(problemsOf({ max: 5 })).toEqual([
      'rateLimit.perSeconds must be an integer from 1 to 86400, got undefined',
    ]);
    expect(problemsOf(5)).toEqual(['rateLimit must be an object { max, perSeconds }, got 5']);
  });
});
