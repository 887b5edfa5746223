import type { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { describe, expect, it } from 'vitest';
import { LambdaDispatcherInvoker } from '../../lib/adapters/lambda/lambda-dispatcher-invoker';

/** A Lambda client that answers every Invoke with `status` and records the commands. */
function recordingClient(status: number) {
  const commands: InvokeCommand[] = [];
  const client = {
    send: async (command: InvokeCommand) => {
      commands.push(command);
      return { StatusCode: status };
    },
  } as unknown as LambdaClient;
  return { client, commands };
}

describe('LambdaDispatcherInvoker', () => {
  it('invokes the dispatcher asynchronously with the request as its JSON payload', async () => {
    const { client, commands } = recordingClient(202);
    const request = { owner: 'tick-1', shards: [1, 4], leaseUntil: 1_700_000_050_000 };

    await new LambdaDispatcherInvoker({ client, functionName: 'sundial-dispatcher' }).invoke(request);

    expect(commands).toHaveLength(1);
    const input = commands[0]?.input;
    expect(input).toMatchObject({ FunctionName: 'sundial-dispatcher', InvocationType: 'Event' });
    expect(JSON.parse(new TextDecoder().decode(input?.Payload as Uint8Array))).toEqual(request);
  });

  it('fails when Lambda did not queue the invocation, so the tick gives the shards back', async () => {
    const { client } = recordingClient(200);

    await expect(
      new LambdaDispatcherInvoker({ client, functionName: 'f' }).invoke({
        owner: 't',
        shards: [0],
        leaseUntil: 1,
      }),
    ).rejects.toThrow('the dispatcher Lambda did not accept the invocation (status 200)');
  });
});
