import type { WireOverrides } from '../../core/admin-contract/overrides-and-metadata';

/** `tenant=acme, tier=gold`, by key (stores need not keep the order); empty for no metadata. */
export function metadataText(metadata: Readonly<Record<string, string>>): string {
  return Object.entries(metadata)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');
}

/** The detail lines of a schedule's or job's description, overrides and metadata (only those it has). */
export function overrideAndMetadataLines(
  item: WireOverrides & { metadata: Record<string, string>; description?: string | null },
): [string, string][] {
  const overrides: [string, number | null, string][] = [
    ['max attempts', item.max_attempts, ''],
    ['backoff', item.backoff_seconds, ' s'],
    ['timeout', item.timeout_seconds, ' s'],
    ['result ttl', item.result_ttl_seconds, ' s'],
  ];
  return [
    ...(item.description ? [['description', item.description] as [string, string]] : []),
    ...overrides.flatMap(([label, value, unit]): [string, string][] =>
      value === null ? [] : [[label, `${value}${unit} (overrides the task's)`]],
    ),
    ...(Object.keys(item.metadata).length > 0
      ? [['metadata', metadataText(item.metadata)] as [string, string]]
      : []),
  ];
}
