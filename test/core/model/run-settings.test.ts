import { describe, expect, it } from 'vitest';
import { matchesMetadata } from '../../../lib/core/model/metadata';
import { type RunSettings, resolveRunSettings } from '../../../lib/core/model/run-settings';

const task: RunSettings = {
  maxAttempts: 3,
  backoffSeconds: 2,
  maxBackoffSeconds: 300,
  timeoutSeconds: 60,
  resultTtlSeconds: null,
};

describe('resolveRunSettings', () => {
  it('runs with the task’s settings when nothing overrides them', () => {
    expect(resolveRunSettings(task)).toEqual(task);
    expect(resolveRunSettings(task, undefined, {})).toEqual(task);
  });

  it('takes each setting from the most specific layer that sets it: job, then schedule, then task', () => {
    const job = { maxAttempts: 1 };
    const schedule = { maxAttempts: 7, timeoutSeconds: 30, resultTtlSeconds: 600 };

    expect(resolveRunSettings(task, job, schedule)).toEqual({
      maxAttempts: 1,
      backoffSeconds: 2,
      maxBackoffSeconds: 300,
      timeoutSeconds: 30,
      resultTtlSeconds: 600,
    });
  });

  it('never lets a timeout exceed the task’s own (it may have been lowered since)', () => {
    expect(resolveRunSettings(task, { timeoutSeconds: 900 }).timeoutSeconds).toBe(60);
    expect(resolveRunSettings(task, { timeoutSeconds: 5 }).timeoutSeconds).toBe(5);
  });

  it('raises the backoff ceiling to an overridden backoff, so the override takes effect', () => {
    expect(resolveRunSettings(task, { backoffSeconds: 600 })).toMatchObject({
      backoffSeconds: 600,
      maxBackoffSeconds: 600,
    });
    expect(resolveRunSettings(task, { backoffSeconds: 0 })).toMatchObject({
      backoffSeconds: 0,
      maxBackoffSeconds: 300,
    });
  });
});

describe('matchesMetadata', () => {
  const metadata = { team: 'billing', region: 'eu' };

  it('matches when every entry of the filter is present with the same value', () => {
    expect(matchesMetadata(metadata, { team: 'billing' })).toBe(true);
    expect(matchesMetadata(metadata, { team: 'billing', region: 'eu' })).toBe(true);
    expect(matchesMetadata(metadata, undefined)).toBe(true);
  });

  it('does not match a different value, a missing key or missing metadata', () => {
    expect(matchesMetadata(metadata, { team: 'ops' })).toBe(false);
    expect(matchesMetadata(metadata, { team: 'billing', tier: 'gold' })).toBe(false);
    expect(matchesMetadata(undefined, { team: 'billing' })).toBe(false);
    expect(matchesMetadata({}, { toString: '' })).toBe(false);
  });
});
