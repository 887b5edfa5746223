import { BatchRequestTooLong, type SendMessageBatchRequest, type SQSClient } from '@aws-sdk/client-sqs';
import { localSqsClient } from '../../support/sqs';

export interface BatchLimitedClient extends SQSClient {
  /** SendMessageBatch calls refused for their total size. */
  rejectedBatches: number;
}

/**
 * An SQS client for the emulator that refuses a SendMessageBatch whose messages add up to more than
 * `limitBytes` with BatchRequestTooLong for the whole call, as AWS does (the sum of the bodies' UTF-8
 * bytes plus message attributes, of which the tests send none). fauxqs 1.9.2 enforces only 1 MiB.
 */
export function batchLimitedClient(endpoint: string, limitBytes: number): BatchLimitedClient {
  const client = Object.assign(localSqsClient(endpoint), { rejectedBatches: 0 });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'SendMessageBatchCommand') {
        const entries = (args.input as SendMessageBatchRequest).Entries ?? [];
        const total = entries.reduce(
          (sum, entry) => sum + Buffer.byteLength(entry.MessageBody ?? '', 'utf8'),
          0,
        );
        if (total > limitBytes) {
          client.rejectedBatches += 1;
          throw new BatchRequestTooLong({
            message: `Batch requests cannot be longer than ${limitBytes} bytes. You have sent ${total} bytes.`,
            $metadata: { httpStatusCode: 400 },
          });
        }
      }
      return next(args);
    },
    { step: 'initialize', name: 'batchLimitOfOlderRegions' },
  );
  return client;
}
