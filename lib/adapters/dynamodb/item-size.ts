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
    size += utf8Length(name) + valueSize(value);
  }
  return size;
}

/** Write units of one item of `bytes` size: one per started KB, at least one. */
export function writeUnitsForSize(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / 1024));
}

function valueSize(value: unknown): number {
  if (typeof value === 'string') return utf8Length(value);
  if (typeof value === 'number' || typeof value === 'bigint') return numberSize(value);
  if (typeof value === 'boolean' || value === null) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce<number>((sum, member) => sum + valueSize(member), 0);
  if (Array.isArray(value)) {
    return value.reduce<number>((sum, element) => sum + 1 + valueSize(element), 3);
  }
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).reduce<number>(
      (sum, [name, element]) =>
        element === undefined ? sum : sum + 1 + utf8Length(name) + valueSize(element),
      3,
    );
  }
  return 0;
}

function numberSize(value: number | bigint): number {
  const digits = String(value)
    .replace(/^-/, '')
    .replace(/e[+-]?\d+$/i, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return 1 + Math.ceil(Math.max(1, digits.length) / 2);
}

function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
