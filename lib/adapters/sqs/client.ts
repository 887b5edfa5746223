import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import { withoutSdkLogging } from '../sdk-logging';

/** The SQS client of the queue, the dead-letter queue and failure destinations, configured from `config` and the environment. */
export function queueClient(config: SQSClientConfig = {}): SQSClient {
  return withoutSdkLogging(new SQSClient(config));
}
