import { LambdaClient } from '@aws-sdk/client-lambda';
import { LambdaDispatcherInvoker } from '../../adapters/lambda/lambda-dispatcher-invoker';
import { withoutSdkLogging } from '../../adapters/sdk-logging';
import { dependenciesOnce } from '../dependencies';
import { createTickHandler } from '../handlers/tick';
import { withLambdaContext } from './lambda-context';

/** The tick's dependencies: it alone starts dispatcher Lambdas, so its bundle alone holds the Lambda client. */
const tickDependencies = dependenciesOnce({
  dispatcherInvoker: (functionName) =>
    new LambdaDispatcherInvoker({ client: withoutSdkLogging(new LambdaClient({})), functionName }),
});

/** The tick Lambda's entry point (an EventBridge rule invokes it every minute). */
export const handler = withLambdaContext(tickDependencies, createTickHandler(tickDependencies));
