import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../lib/local/dynamodb-local';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `http://127.0.0.1:<port>` of the DynamoDB Local started for this run. */
    dynamodbEndpoint: string;
  }
}

/** One emulator of the integration run: started before the first test file, stopped after the last. */
interface Emulator {
  name: string;
  start(project: TestProject): Promise<() => Promise<void>>;
}

const emulators: Emulator[] = [
  {
    name: 'DynamoDB Local',
    async start(project) {
      const dynamo = await startDynamoDbLocal();
      project.provide('dynamodbEndpoint', dynamo.endpoint);
      return dynamo.stop;
    },
  },
  // The SQS emulator goes here (provide its endpoint the same way).
];

/** vitest globalSetup of the `integration` project: starts every emulator once, returns their teardown. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stops: (() => Promise<void>)[] = [];
  const teardown = async () => {
    await Promise.allSettled(stops.reverse().map((stop) => stop()));
  };
  try {
    for (const emulator of emulators) stops.push(await emulator.start(project));
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}
