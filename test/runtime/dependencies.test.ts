import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import type { DispatcherInvoker } from '../../lib/core/ports/dispatcher-invoker';
import { discardingPublisher } from '../../lib/core/ports/event-publisher';
import { readConfig } from '../../lib/runtime/config';
import { buildRuntimeDependencies } from '../../lib/runtime/dependencies';

const REQUIRED = {
  SUNDIAL_TABLE_NAME: 'sundial',
  SUNDIAL_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/1/jobs',
};

/** Clients that are built but never called: nothing here sends a request. */
function clients() {
  const settings = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  return { dynamodb: new DynamoDBClient(settings), sqs: new SQSClient(settings) };
}

describe('runtime dependencies', () => {
  it('starts the dispatcher Lambda the configuration names with the invoker its entry gives', () => {
    // Prepare
    const named: string[] = [];
    const invoker: DispatcherInvoker = { invoke: async () => {} };
    const config = readConfig({ ...REQUIRED, SUNDIAL_DISPATCHER_FUNCTION: 'sundial-dispatcher' });

    // Act
    const deps = buildRuntimeDependencies(config, {
      ...clients(),
      dispatcherInvoker: (functionName) => {
        named.push(functionName);
        return invoker;
      },
    });

    // Assess
    expect(deps.dispatcherInvoker).toBe(invoker);
    expect(named).toEqual(['sundial-dispatcher']);
  });

  it('refuses a dispatcher Lambda in a Lambda whose entry cannot start one, naming the variable', () => {
    const config = readConfig({ ...REQUIRED, SUNDIAL_DISPATCHER_FUNCTION: 'sundial-dispatcher' });

    expect(() => buildRuntimeDependencies(config, clients())).toThrow(
      "invalid Sundial configuration: SUNDIAL_DISPATCHER_FUNCTION is set (sundial-dispatcher), but only the tick's entry starts dispatcher Lambdas",
    );
  });

  it('runs the dispatchers in its own process when no dispatcher Lambda is named, and publishes nowhere without a bus', () => {
    const deps = buildRuntimeDependencies(readConfig(REQUIRED), clients());

    expect(deps.dispatcherInvoker).toBeUndefined();
    expect(deps.events).toBe(discardingPublisher);
  });
});
