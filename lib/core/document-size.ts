/**
 * The size a document store bills a JSON-like value by, in bytes, following DynamoDB's published rules:
 * strings by their UTF-8 length, numbers by about one byte per two significant digits plus one, binary
 * by its length, booleans and null one byte, lists and maps three bytes plus one per element plus their
 * elements (a map's element names included), sets the sum of their members. It differs from the value's
 * JSON length both ways: a list of small numbers takes about 1.5 bytes per JSON byte, escapes less.
 */
export function documentSizeBytes(value: unknown): number {
  return valueSize(value);
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

export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
