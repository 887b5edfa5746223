import type { AttributeValue, ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type BatchGetCommandInput,
  type BatchGetCommandOutput,
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
import type { CapacityMeter, RequestKind } from './capacity';
import { type RetryPolicy, withRetries } from './retry';
import type { ItemKey } from './table-design';

export type StoredItem = Record<string, unknown>;

type WithoutTable<T> = Omit<T, 'TableName' | 'ReturnConsumedCapacity'>;

/**
 * Everything the operation modules share: the document client, the table, the shard count, the retry
 * policy and the optional capacity meter. Each request is retried on transient errors and metered.
 */
export class StoreContext {
  constructor(
    readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
    readonly shards: number,
    private readonly retry: RetryPolicy,
    private readonly meter?: CapacityMeter,
  ) {}

  get(operation: string, input: WithoutTable<GetCommandInput>) {
    return this.run(operation, 'read', () => this.client.send(new GetCommand(this.withTable(input))));
  }

  put(operation: string, input: WithoutTable<PutCommandInput>) {
    return this.run(operation, 'write', () => this.client.send(new PutCommand(this.withTable(input))));
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
    return this.run(operation, 'write', () =>
      this.client.send(
        new TransactWriteCommand({
          ...input,
          ClientRequestToken,
          ReturnConsumedCapacity: this.capacityMode(),
        }),
      ),
    );
  }

  /** Reads items by key (100 per request, unprocessed keys retried); returns them by `pk`. */
  async batchGet(
    operation: string,
    keys: readonly ItemKey[],
    consistent = true,
  ): Promise<Map<string, StoredItem>> {
    const found = new Map<string, StoredItem>();
    const unique = [...new Map(keys.map((key) => [`${key.pk}\u0000${key.sk}`, key])).values()];
    for (let start = 0; start < unique.length; start += 100) {
      let pending: BatchGetCommandInput['RequestItems'] = {
        [this.tableName]: { Keys: unique.slice(start, start + 100), ConsistentRead: consistent },
      };
      for (let round = 0; pending && Object.keys(pending).length > 0; round++) {
        const request = pending;
        const output: BatchGetCommandOutput = await this.run(operation, 'read', () =>
          this.client.send(
            new BatchGetCommand({ RequestItems: request, ReturnConsumedCapacity: this.capacityMode() }),
          ),
        );
        for (const item of output.Responses?.[this.tableName] ?? []) found.set(String(item.pk), item);
        pending = output.UnprocessedKeys;
        if (pending && Object.keys(pending).length > 0)
          await new Promise((done) => setTimeout(done, 10 * 2 ** round));
      }
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

  private async run<T extends { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }>(
    operation: string,
    kind: RequestKind,
    call: () => Promise<T>,
  ): Promise<T> {
    const output = await withRetries(operation, this.retry, call);
    if (this.meter && output.ConsumedCapacity) {
      const consumed = output.ConsumedCapacity;
      this.meter.record(operation, kind, Array.isArray(consumed) ? consumed : [consumed]);
    }
    return output;
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
