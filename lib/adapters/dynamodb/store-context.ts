import type { AttributeValue } from '@aws-sdk/client-dynamodb';
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
import { type RetryPolicy, type Sleep, UnprocessedKeysError, withRetries } from './retry';
import { type ItemKey, itemKeyString } from './table-design';

export type StoredItem = Record<string, unknown>;

type WithoutTable<T> = Omit<T, 'TableName' | 'ReturnConsumedCapacity'>;

/**
 * Everything the operation modules share: the document client, the table, the shard count, and the
 * retry policy (and how to wait between tries). Each request is retried on transient errors; the
 * operation's name says which store operation gave up, when one does.
 */
export class StoreContext {
  constructor(
    readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
    readonly shards: number,
    private readonly retry: RetryPolicy,
    private readonly sleep: Sleep,
  ) {}

  get(operation: string, input: WithoutTable<GetCommandInput>) {
    return this.run(operation, () => this.client.send(new GetCommand(this.withTable(input))));
  }

  /** `abortSignal` ends the request in flight and every later try (an `AbortError`, not retried). */
  put(operation: string, input: WithoutTable<PutCommandInput>, abortSignal?: AbortSignal) {
    return this.run(operation, () =>
      this.client.send(new PutCommand(this.withTable(input)), { ...(abortSignal && { abortSignal }) }),
    );
  }

  update(operation: string, input: WithoutTable<UpdateCommandInput>) {
    return this.run(operation, () => this.client.send(new UpdateCommand(this.withTable(input))));
  }

  delete(operation: string, input: WithoutTable<DeleteCommandInput>) {
    return this.run(operation, () => this.client.send(new DeleteCommand(this.withTable(input))));
  }

  query(operation: string, input: WithoutTable<QueryCommandInput>) {
    return this.run(operation, () => this.client.send(new QueryCommand(this.withTable(input))));
  }

  /** Transactions carry a client token chosen once per call, so a retry of an applied transaction is a no-op. */
  transact(operation: string, input: Omit<TransactWriteCommandInput, 'ReturnConsumedCapacity'>) {
    const ClientRequestToken = input.ClientRequestToken ?? crypto.randomUUID();
    return this.run(operation, () =>
      this.client.send(new TransactWriteCommand({ ...input, ClientRequestToken })),
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
          }),
        );
      await withRetries(
        operation,
        this.retry,
        async () => {
          const output = await request();
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

  private withTable<T extends object>(input: T): T & { TableName: string } {
    return { ...input, TableName: this.tableName };
  }

  private run<T>(operation: string, call: () => Promise<T>): Promise<T> {
    return withRetries(operation, this.retry, call, this.sleep);
  }
}

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
