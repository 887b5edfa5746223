/**
 * Freezes `value` and everything it holds, in place, and returns it: a value many readers share (a
 * message the memory store keeps) that none of them may change; a write to it throws.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
