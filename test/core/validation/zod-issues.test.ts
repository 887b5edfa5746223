import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseWithIssues } from '../../../lib/core/validation/zod-issues';

const report = z.strictObject({
  team: z.string(),
  count: z.int().min(1).max(10),
  format: z.enum(['pdf', 'csv']).optional(),
  kind: z.literal('report').optional(),
  recipients: z.array(z.string()).min(1).optional(),
  window: z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('daily') }),
    z.strictObject({ type: z.literal('weekly'), weekday: z.int() }),
  ]),
  id: z.string({ error: 'must be a string naming a report' }).optional(),
});

const issuesOf = (input: unknown, path = '') => {
  const parsed = parseWithIssues(report, input, path);
  return 'issues' in parsed ? parsed.issues : [];
};

describe('parseWithIssues: zod issues as Sundial words them', () => {
  it('returns the parsed value when the input is valid', () => {
    const input = { team: 'ops', count: 2, window: { type: 'daily' } };
    expect(parseWithIssues(report, input)).toEqual({ value: input });
  });

  it('names a missing field as required, whatever message its schema has', () => {
    expect(issuesOf({ count: 1, window: { type: 'daily' } })).toEqual([
      { path: 'team', message: 'is required' },
    ]);
  });

  it('says what type is allowed and what came', () => {
    expect(issuesOf({ team: 7, count: 1.5, window: { type: 'daily' }, id: 3 })).toEqual([
      { path: 'team', message: 'must be a string (got 7)' },
      { path: 'count', message: 'must be a whole number (got 1.5)' },
      { path: 'id', message: 'must be a string naming a report' },
    ]);
  });

  it('gives bounds, allowed values and list lengths', () => {
    expect(
      issuesOf({
        team: 'ops',
        count: 11,
        format: 'doc',
        kind: 'memo',
        recipients: [],
        window: { type: 'daily' },
      }),
    ).toEqual([
      { path: 'count', message: 'must be at most 10' },
      { path: 'format', message: "must be 'pdf' or 'csv' (got 'doc')" },
      { path: 'kind', message: "must be 'report' (got 'memo')" },
      { path: 'recipients', message: 'must hold at least 1 item' },
    ]);
  });

  it('names the allowed kinds of a discriminated union, or that one is required', () => {
    expect(issuesOf({ team: 'ops', count: 1, window: { type: 'hourly' } })).toEqual([
      { path: 'window.type', message: "must be one of daily, weekly (got 'hourly')" },
    ]);
    expect(issuesOf({ team: 'ops', count: 1, window: {} })).toEqual([
      { path: 'window.type', message: 'is required: must be one of daily, weekly' },
    ]);
  });

  it('reports each unknown field with the fields allowed there, under a prefix', () => {
    expect(
      issuesOf(
        { team: 'ops', count: 1, colour: 'blue', window: { type: 'weekly', weekday: 1, hour: 9 } },
        'jobs[2]',
      ),
    ).toEqual([
      { path: 'jobs[2].window.hour', message: 'is not a known field; allowed fields: type, weekday' },
      {
        path: 'jobs[2].colour',
        message: 'is not a known field; allowed fields: team, count, format, kind, recipients, window, id',
      },
    ]);
  });

  it('says when a place allows no fields at all', () => {
    const parsed = parseWithIssues(z.strictObject({}), { verbose: true });
    expect(parsed).toEqual({
      issues: [{ path: 'verbose', message: 'is not a known field; no fields are allowed here' }],
    });
  });

  it('says what a value that is not an object was', () => {
    expect(issuesOf('0 * * * *', 'trigger')).toEqual([
      { path: 'trigger', message: "must be an object (got '0 * * * *')" },
    ]);
  });
});
