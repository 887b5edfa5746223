import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * A client whose first command that `matches` is applied, but whose answer is lost on the way back (a
 * `TimeoutError`, which the store retries): the retry must recognise its own applied try.
 */
export function losingFirstAnswer(
  client: DynamoDBDocumentClient,
  matches: (command: unknown) => boolean,
): { client: DynamoDBDocumentClient; readonly faults: number } {
  const state = { faults: 0 };
  const wrapped = new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return async (command: unknown) => {
        const output = await target.send(command as never);
        if (state.faults === 0 && matches(command)) {
          state.faults += 1;
          throw Object.assign(new Error('socket timed out after the request was sent'), {
            name: 'TimeoutError',
          });
        }
        return output;
      };
    },
  });
  return {
    client: wrapped,
    get faults() {
      return state.faults;
    },
  };
}
