/** A value that survives `JSON.stringify` / `JSON.parse` unchanged: payloads and return values. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A plain object (not null, not an array): a record of fields to look into. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
