import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import type { DispatcherInvoker, DispatchRequest } from '../../core/ports/dispatcher-invoker';

export interface LambdaDispatcherInvokerOptions {
  client: LambdaClient;
  /** The dispatcher Lambda's name or ARN. */
  functionName: string;
}

/**
 * Starts the dispatcher Lambda with an asynchronous invocation (`InvocationType: Event`): Lambda queues
 * the request and answers 202 at once, so one tick starts every dispatcher in a few milliseconds. Lambda
 * retries nothing (the function is configured with no retries); a dispatcher that fails leaves its shards
 * to run out of their leases, and a later tick dispatches them.
 */
export class LambdaDispatcherInvoker implements DispatcherInvoker {
  constructor(private readonly options: LambdaDispatcherInvokerOptions) {}

  async invoke(request: DispatchRequest): Promise<void> {
    const output = await this.options.client.send(
      new InvokeCommand({
        FunctionName: this.options.functionName,
        InvocationType: 'Event',
        Payload: new TextEncoder().encode(JSON.stringify(request)),
      }),
    );
    if (output.StatusCode !== 202) {
      throw new Error(`the dispatcher Lambda did not accept the invocation (status ${output.StatusCode})`);
    }
  }
}
