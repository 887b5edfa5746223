import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TableAccess } from '../../lib/infra/permissions';
import { localDynamoDbClient } from './dynamodb';

/** A call a role's grants would refuse in AWS: what it was, and why. */
export interface DeniedCall {
  role: string;
  call: string;
}

type Input = Record<string, unknown>;

/** A key attribute's value, marshalled (`{ S: 'x' }`) or not. */
function stringValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { S?: unknown }).S === 'string') {
    return (value as { S: string }).S;
  }
  return undefined;
}

/** The partition key value a table query names in its key condition (`pk = :v`, `#pk = :v`). */
function queriedPartition(input: Input): string | undefined {
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
  for (const match of String(input.KeyConditionExpression ?? '').matchAll(/(#?\w+)\s*=\s*(:\w+)/g)) {
    const [, token = '', valueToken = ''] = match;
    const name = token.startsWith('#') ? names[token] : token;
    if (name === 'pk') return stringValue(values[valueToken]);
  }
  return undefined;
}

const startsWithOneOf = (pk: string | undefined, prefixes: readonly string[] | undefined) =>
  pk !== undefined && (prefixes ?? []).some((prefix) => pk.startsWith(prefix));

/** Whether IAM would let `access` make one item write (a request's, or one item of a transaction). */
function writeAllowed(
  access: TableAccess,
  action: 'Put' | 'Update' | 'Delete',
  pk: string | undefined,
): boolean {
  const granted = (access.writes as readonly string[]).includes(`dynamodb:${action}Item`);
  if (granted && (access.writeKeyPrefixes === undefined || startsWithOneOf(pk, access.writeKeyPrefixes))) {
    return true;
  }
  if (action === 'Put') return startsWithOneOf(pk, access.putKeyPrefixes);
  if (action === 'Delete') return startsWithOneOf(pk, access.deleteKeyPrefixes);
  return false;
}

/** `GetItemCommand` and `GetCommand` (the document client's) alike: `Get`. */
function operationOf(commandName: string): string {
  return commandName.replace(/Command$/, '').replace(/Items?$/, '');
}

/** Why IAM would refuse this call to `access`, or undefined when it would allow it. */
export function refusal(access: TableAccess, commandName: string, input: Input): string | undefined {
  const item = (input.Item ?? input.Key ?? {}) as Input;
  const pk = stringValue(item.pk);
  const operation = operationOf(commandName);
  switch (operation) {
    case 'Get':
    case 'BatchGet':
      return undefined;
    case 'Query': {
      const index = input.IndexName as string | undefined;
      if (index !== undefined) {
        return access.queryIndexes.includes(index) ? undefined : `Query on index ${index}`;
      }
      const partition = queriedPartition(input);
      return startsWithOneOf(partition, access.queryKeyPrefixes)
        ? undefined
        : `Query of partition ${partition}`;
    }
    case 'Put':
    case 'Update':
    case 'Delete':
      return writeAllowed(access, operation, pk) ? undefined : `${operation}Item on ${pk}`;
    case 'TransactWrite': {
      for (const entry of (input.TransactItems ?? []) as Input[]) {
        for (const action of ['Put', 'Update', 'Delete'] as const) {
          const part = entry[action] as Input | undefined;
          if (!part) continue;
          const key = stringValue(((part.Item ?? part.Key ?? {}) as Input).pk);
          if (!writeAllowed(access, action, key)) return `${action}Item on ${key} (in a transaction)`;
        }
      }
      return undefined;
    }
    default:
      return `${commandName} (granted to no Lambda)`;
  }
}

/**
 * A document client whose calls are checked against `access` as IAM would check them: a call outside
 * it is recorded in `denied` and fails with AccessDeniedException, as in AWS.
 */
export function guardedDocumentClient(
  endpoint: string,
  access: TableAccess,
  role: string,
  denied: DeniedCall[],
): DynamoDBDocumentClient {
  // A client of its own: a document client shares its base client's middleware stack.
  const guarded = DynamoDBDocumentClient.from(localDynamoDbClient(endpoint), {
    marshallOptions: { removeUndefinedValues: true },
  });
  guarded.middlewareStack.add(
    (next, context) => async (args) => {
      const why = refusal(access, String(context.commandName), args.input as Input);
      if (why !== undefined) {
        denied.push({ role, call: why });
        throw Object.assign(new Error(`${role} is not authorized to perform ${why}`), {
          name: 'AccessDeniedException',
        });
      }
      return next(args);
    },
    { step: 'initialize', name: 'tableAccessGuard' },
  );
  return guarded;
}
