/** A value that survives `JSON.stringify` / `JSON.parse` unchanged: payloads and return values. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
