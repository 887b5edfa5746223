import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/** A Lambda `Context` for running a handler in-process with the given timeout, as the Lambda service would. */
export function localLambdaContext(functionName: string, timeoutMs: number): Context {
  return lambdaContextUntil(functionName, Date.now() + timeoutMs);
}

/** A Lambda `Context` of an invocation that Lambda ends at `deadline` (epoch ms). */
export function lambdaContextUntil(functionName: string, deadline: number): Context {
  const requestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/${requestId}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
