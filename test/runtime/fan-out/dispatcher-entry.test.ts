import { describe, expect, it } from 'vitest';
import { createDispatcherHandler } from '../../../lib/runtime/handlers/dispatcher';
import { withLambdaContext } from '../../../lib/runtime/lambda/lambda-context';
import { lambdaContext, T0, testRuntime } from '../support';

describe('dispatcher Lambda entry', () => {
  it('puts the request id on its summary line and writes its EMF metrics under Service=dispatcher', async () => {
    const runtime = testRuntime();
    const handler = withLambdaContext(
      () => runtime.deps,
      createDispatcherHandler(() => runtime.deps),
    );

    await handler(
      { owner: 'tick-1', shards: [0, 1], leaseUntil: T0 + 50_000 },
      lambdaContext('sundial-dispatcher', 'dispatch-1'),
    );

    expect(runtime.logLines).toContainEqual(
      expect.objectContaining({
        message: 'dispatcher finished',
        shards: [0, 1],
        function_request_id: 'dispatch-1',
      }),
    );
    expect(JSON.stringify(runtime.metricLines)).toContain('"Service":"dispatcher"');
  });
});
