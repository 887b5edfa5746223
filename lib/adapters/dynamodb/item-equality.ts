import type { StoredItem } from './store-context';

/**
 * Whether two items hold the same attributes and values (key order ignored): recognises our own write
 * when a retried conditional put fails because its first try had in fact succeeded.
 */
export function sameItem(a: StoredItem, b: StoredItem): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonical(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
