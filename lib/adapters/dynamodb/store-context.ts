import type { AttributeValue, ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  type DeleteCommandInput,
  type DynamoDBDocumentClient,
  GetCommand,
  type GetCommandInput,
  PutCommand,
  type PutCommandInput,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { plainItem } from './attribute-values';
import type { CapacityMeter, RequestKind, RequestShape } from './capacity';
import { failedWriteUnits } from './failed-write-units';
import { type RetryPolicy, type Sleep, UnprocessedKeysError, withRetries } from './retry';
import { type ItemKey, itemKeyString } from './table-design';

export type StoredItem = Record<string, unknown>;

type WithoutTable<T> = Omit<T, 'TableName' | 'ReturnConsumedCapacity'>;

/**
 * Everything the operation modules share: the document client, the table, the shard count, the retry
 * policy (and how to wait between tries) and the optional capacity meter. Each request is retried on
 * transient errors and metered.
 */
export class StoreContext {
  constructor(
    readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
    readonly shards: number,
    private readonly retry: RetryPolicy,
    private readonly sleep: Sleep,
    private readonly meter?: CapacityMeter,
  ) {}

  get(operation: string, input: WithoutTable<GetCommandInput>) {
    return this.run(operation, 'read', () => this.client.send(new GetCommand(this.withTable(input))));
  }

  /** `abortSignal` ends the request in flight and every later try (an `AbortError`, not retried). */
  put(operation: string, input: WithoutTable<PutCommandInput>, abortSignal?: AbortSignal) {
    return this.run(operation, 'write', () =>
      this.client.send(new PutCommand(this.withTable(input)), { ...(abortSignal && { abortSignal }) }),
    );
  }

  update(operation: string, input: WithoutTable<UpdateCommandInput>) {
    return this.run(operation, 'write', () => this.client.send(new UpdateCommand(this.withTable(input))));
  }

  delete(operation: string, input: WithoutTable<DeleteCommandInput>) {
    return this.run(operation, 'write', () => this.client.send(new DeleteCommand(this.withTable(input))));
  }

  query(operation: string, input: WithoutTable<QueryCommandInput>) {
    return this.run(operation, 'read', () => this.client.send(new QueryCommand(this.withTable(input))));
  }

  /** Transactions carry a client token chosen once per call, so a retry of an applied transaction is a no-op. */
  transact(operation: string, input: Omit<TransactWriteCommandInput, 'ReturnConsumedCapacity'>) {
    const ClientRequestToken = input.ClientRequestToken ?? crypto.randomUUID();
    const items = input.TransactItems ?? [];
    const shape = { transaction: { conditionChecks: items.filter((item) => item.ConditionCheck).length } };
    return this.run(
      operation,
      'write',
      () =>
        this.client.send(
          new TransactWriteCommand({
            ...input,
            ClientRequestToken,
            ReturnConsumedCapacity: this.capacityMode(),
          }),
        ),
      shape,
      items,
    );
  }

  /**
   * Reads items by key (100 per request); returns them by `pk`. Keys DynamoDB leaves unprocessed
   * (throttled reads) are requested again after a backoff; every request of a hundred keys counts
   * towards one budget of the retry policy's tries, and then `StoreUnavailableError`.
   */
  /** The items found, keyed by `itemKeyString` of their key. */
  async batchGet(
    operation: string,
    keys: readonly ItemKey[],
    consistent = true,
  ): Promise<Map<string, StoredItem>> {
    const found = new Map<string, StoredItem>();
    const unique = [...new Map(keys.map((key) => [itemKeyString(key), key])).values()];
    for (let start = 0; start < unique.length; start += 100) {
      let pending: Record<string, unknown>[] = unique.slice(start, start + 100).map((key) => ({ ...key }));
      const request = () =>
        this.client.send(
          new BatchGetCommand({
            RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: consistent } },
            ReturnConsumedCapacity: this.capacityMode(),
          }),
        );
      await withRetries(
        operation,
        this.retry,
        async () => {
          const output = this.metered(operation, 'read', await request());
          for (const item of output.Responses?.[this.tableName] ?? []) {
            found.set(itemKeyString({ pk: String(item.pk), sk: String(item.sk) }), item);
          }
          pending = output.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
          if (pending.length > 0) throw new UnprocessedKeysError(pending.length);
        },
        this.sleep,
      );
    }
    return found;
  }

  private withTable<T extends object>(
    input: T,
  ): T & { TableName: string; ReturnConsumedCapacity?: 'INDEXES' } {
    return { ...input, TableName: this.tableName, ReturnConsumedCapacity: this.capacityMode() };
  }

  private capacityMode(): 'INDEXES' | undefined {
    return this.meter ? 'INDEXES' : undefined;
  }

  private run<T extends Metered>(
    operation: string,
    kind: RequestKind,
    call: () => Promise<T>,
    shape: RequestShape = {},
    transactItems: readonly TransactItem[] = [],
  ): Promise<T> {
    return withRetries(
      operation,
      this.retry,
      async () => {
        try {
          return this.metered(operation, kind, await call(), shape);
        } catch (error) {
          const units = this.meter && kind === 'write' ? failedWriteUnits(error, transactItems) : undefined;
          if (units !== undefined) this.meter?.recordFailedWrite(operation, units);
          throw error;
        }
      },
      this.sleep,
    );
  }

  private metered<T extends Metered>(
    operation: string,
    kind: RequestKind,
    output: T,
    shape: RequestShape = {},
  ): T {
    if (this.meter && output.ConsumedCapacity) {
      const consumed = output.ConsumedCapacity;
      this.meter.record(operation, kind, Array.isArray(consumed) ? consumed : [consumed], shape);
    }
    return output;
  }
}

type Metered = { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] };
type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * When `error` is a failed condition, the item as it was (with ReturnValuesOnConditionCheckFailure
 * ALL_OLD; `undefined` when there was no item); otherwise rethrows `error`.
 */
export function conditionFailure(error: unknown): { old: StoredItem | undefined } {
  if (error instanceof Error && error.name === 'ConditionalCheckFailedException') {
    return { old: plainItem((error as { Item?: Record<string, AttributeValue> }).Item) };
  }
  throw error;
}

export interface CancellationReason {
  code: string;
  old: StoredItem | undefined;
}

/**
 * When `error` is a transaction cancelled by failed conditions, the reason for each of its items (in
 * order; `code` 'None' for items that did not fail); otherwise rethrows `error`.
 */
export function transactionCancellation(error: unknown): CancellationReason[] {
  if (error instanceof Error && error.name === 'TransactionCanceledException') {
    const reasons =
      (error as { CancellationReasons?: { Code?: string; Item?: Record<string, AttributeValue> }[] })
        .CancellationReasons ?? [];
    if (reasons.some((reason) => reason.Code === 'ConditionalCheckFailed')) {
      return reasons.map((reason) => ({ code: reason.Code ?? 'None', old: plainItem(reason.Item) }));
    }
  }
  throw error;
}
