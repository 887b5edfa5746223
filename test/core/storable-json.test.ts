import { describe, expect, it } from 'vitest';
import { STORABLE_MAX_DEPTH, storableJsonProblem } from '../../lib/core/storable-json';
import { formatPath } from '../../lib/core/validation';

const LIMIT = 1_000;

describe('storableJsonProblem', () => {
  it.each([
    ['plain JSON', { a: [1, 'two', true, null, { b: -0.5 }] }],
    [
      'the largest and smallest numbers the store keeps exactly',
      { big: Number.MAX_SAFE_INTEGER, small: -1e-130, zero: 0 },
    ],
    ['members whose value is undefined (JSON leaves them out)', { a: 1, gone: undefined }],
    [
      'the same object twice (not a cycle)',
      (() => {
        const shared = { n: 1 };
        return { a: shared, b: shared };
      })(),
    ],
  ])('accepts %s', (_name, value) => {
    expect(storableJsonProblem(value, LIMIT)).toBeUndefined();
  });

  it.each([
    ['a number too large', { a: { n: 1e200 } }, '.a.n', 'must hold numbers from -9007199254740991'],
    ['a number past 2^53', { a: { n: 2 ** 53 } }, '.a.n', 'must hold numbers from -9007199254740991'],
    ['a number too small', [0, 1e-200], '[1]', 'of magnitude at least 1e-130'],
    [
      'a __proto__ key',
      JSON.parse('{"a":{"__proto__":1}}'),
      '.a.__proto__',
      'must not be a key named __proto__',
    ],
    ['NaN', { n: Number.NaN }, '.n', 'must be JSON: numbers must be finite'],
    ['a Date', { when: new Date(0) }, '.when', 'must be JSON: objects, arrays'],
    ['undefined in an array', [1, undefined], '[1]', 'must be JSON: objects, arrays'],
    ['an empty key', { a: { '': 1 } }, '.a', 'must not have empty object keys'],
  ])('names where %s is, and what is allowed', (_name, value, path, message) => {
    const problem = storableJsonProblem(value, LIMIT);

    expect(formatPath(problem?.path ?? [], 'value')).toBe(`value${path}`);
    expect(problem?.message).toContain(message);
  });

  it('refuses nesting deeper than DynamoDB maps allow', () => {
    let value: unknown = 1;
    for (let level = 0; level <= STORABLE_MAX_DEPTH; level++) value = [value];

    expect(storableJsonProblem(value, LIMIT)?.message).toBe(
      `must not nest deeper than ${STORABLE_MAX_DEPTH} levels`,
    );
    expect(storableJsonProblem((value as unknown[])[0], LIMIT)).toBeUndefined();
  });

  it('refuses a value that refers to itself', () => {
    const looped: Record<string, unknown> = { a: 1 };
    looped.self = looped;

    expect(storableJsonProblem(looped, LIMIT)).toEqual({
      path: ['self'],
      message: 'must not refer to itself (a cycle)',
    });
  });

  it('refuses more bytes than allowed, saying how many there were', () => {
    expect(storableJsonProblem({ blob: 'x'.repeat(LIMIT) }, LIMIT)?.message).toContain(
      `must be at most ${LIMIT} bytes as UTF-8 JSON (got ${LIMIT + 11})`,
    );
  });

  it('refuses a value within the limit as JSON that takes more as stored: a list of small numbers', () => {
    // `[1,1,…]`: 2 bytes per number as JSON, 3 as stored (1 per list element + 2 per number)
    const ones = Array.from({ length: Math.floor((LIMIT - 1) / 2) }, () => 1);
    const fitting = ones.slice(0, Math.floor((LIMIT - 3) / 3));

    expect(storableJsonProblem(ones, LIMIT)?.message).toMatch(
      new RegExp(`^must be at most ${LIMIT} bytes as stored \\(got \\d+: lists of many small numbers`),
    );
    expect(storableJsonProblem(fitting, LIMIT)).toBeUndefined();
  });
});
