/**
 * String key-value metadata of schedules and jobs: a schedule's is copied to its jobs, the handler sees
 * it in its context, and listings filter on it. Bounded so it never crowds the payload out of an item
 * or a queue message: at most 20 keys of 1–64 characters from letters, digits and `. _ : -`, each value
 * a string of at most 256 characters.
 */
export type Metadata = Record<string, string>;

export const METADATA_LIMITS = { keys: 20, keyLength: 64, valueLength: 256 } as const;

export const METADATA_KEY_PATTERN = /^[A-Za-z0-9._:-]+$/;

/** True when `metadata` has every key of `filter` with the same value (an empty filter matches all). */
export function matchesMetadata(metadata: Metadata | undefined, filter: Metadata | undefined): boolean {
  if (filter === undefined) return true;
  return Object.entries(filter).every(
    ([key, value]) => Object.hasOwn(metadata ?? {}, key) && metadata?.[key] === value,
  );
}

/** The metadata, or undefined when it has no key (stores keep no empty record). */
export function presentMetadata(metadata: Metadata | null | undefined): Metadata | undefined {
  return metadata && Object.keys(metadata).length > 0 ? metadata : undefined;
}
