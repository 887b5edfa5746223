import { documentSizeBytes, utf8Length } from '../../lib/core/document-size';

/**
 * The size DynamoDB bills an item by, in bytes, following its published rules: each attribute's name
 * (UTF-8) plus its value; strings by their UTF-8 length, numbers by about one byte per two
 * significant digits plus one, binary by its length, booleans and null one byte, lists and maps three
 * bytes plus one per element plus their elements (a map's element names included), sets the sum of
 * their members.
 */
export function itemSizeBytes(item: Readonly<Record<string, unknown>>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    size += utf8Length(name) + documentSizeBytes(value);
  }
  return size;
}

/** Write units of one item of `bytes` size: one per started KB, at least one. */
export function writeUnitsForSize(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / 1024));
}
