/**
 * Freezes `value` and everything it holds, in place, and returns it: a value many callers share (a
 * parsed expression, a stored message) that none of them may change; a write to it throws.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
