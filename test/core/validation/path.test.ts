import { describe, expect, it } from 'vitest';
import { formatPath, joinPath } from '../../../lib/core/validation/path';

describe('field paths in messages', () => {
  it('reads names with dots and indexes in brackets, under a prefix', () => {
    expect(formatPath(['trigger', 'triggers', 1, 'timezone'])).toBe('trigger.triggers[1].timezone');
    expect(formatPath(['payload', 'team'], 'jobs[3]')).toBe('jobs[3].payload.team');
    expect(formatPath([2, 'price'], 'return value')).toBe('return value[2].price');
    expect(formatPath([], 'payload')).toBe('payload');
  });

  it('reads Standard Schema path segments ({ key }) like plain keys', () => {
    expect(formatPath([{ key: 'recipients' }, { key: 0 }], 'payload')).toBe('payload.recipients[0]');
  });

  it('shortens a long field name a caller sent', () => {
    expect(formatPath(['x'.repeat(100)])).toBe(`${'x'.repeat(60)}… (100 characters)`);
  });

  it('joins a child path under a parent', () => {
    expect(joinPath('jobs[2]', 'payload')).toBe('jobs[2].payload');
    expect(joinPath('jobs[2]', '[0]')).toBe('jobs[2][0]');
    expect(joinPath('', 'payload')).toBe('payload');
    expect(joinPath('trigger', '')).toBe('trigger');
  });
});
