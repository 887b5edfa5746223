import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/**
 * Converts the raw attribute values DynamoDB puts in condition-failure errors (the document client
 * does not convert those) into plain values, as the document client would.
 */
export function plainItem(
  item: Record<string, AttributeValue> | undefined,
): Record<string, unknown> | undefined {
  if (!item) return undefined;
  return Object.fromEntries(Object.entries(item).map(([name, value]) => [name, plainValue(value)]));
}

function plainValue(value: AttributeValue): unknown {
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) return Number(value.N);
  if (value.BOOL !== undefined) return value.BOOL;
  if (value.NULL !== undefined) return null;
  if (value.L !== undefined) return value.L.map(plainValue);
  if (value.M !== undefined) return plainItem(value.M);
  if (value.SS !== undefined) return new Set(value.SS);
  if (value.NS !== undefined) return new Set(value.NS.map(Number));
  if (value.B !== undefined) return value.B;
  throw new Error(`unsupported attribute value ${JSON.stringify(value)}`);
}
