import { DeleteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { createTestTable, type TestTable } from '../../support/dynamodb';
import { jobRequest, T0 } from '../support';
import { recordFor, workerHarness } from './harness';

let table: TestTable;
beforeAll(async () => {
  table = await createTestTable('own-turn');
});
afterAll(() => table.drop());

/** A client whose first own-turn delete (a conditional delete of a WAIT# entry) is applied, but whose answer is lost. */
function lostAnswerOnOwnTurn(client: DynamoDBDocumentClient): {
  client: DynamoDBDocumentClient;
  faults: number;
} {
  const state = { faults: 0 };
  const wrapped = new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return async (command: unknown) => {
        const output = await target.send(command as never);
        const input = (command as DeleteCommand).input;
        const ownTurn =
          command instanceof DeleteCommand &&
          String(input.Key?.sk).startsWith('WAIT#') &&
          !String(input.ConditionExpression).includes('wakeOwner') &&
          state.faults === 0;
        if (ownTurn) {
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

describe('a job taking its own turn in its line while the store loses an answer', () => {
  it('runs the job when the delete of its own entry is retried after it applied (never losing it)', async () => {
    const faulty = lostAnswerOnOwnTurn(table.documentClient);
    const store = new DynamoDbStore({
      client: faulty.client,
      tableName: table.tableName,
      sleep: async () => {},
    });
    const started: string[] = [];
    const worker = workerHarness(
      { limited: { maxRunningJobs: 1, handler: (_p, { jobId }) => void started.push(jobId) } },
      {},
      { jobStore: store, scheduleStore: store },
    );
    // The one slot is held; it comes back right as the waiter joins the line (the join race)
    await store.claimJob({
      job: jobRequest('holder', { task: 'limited' }),
      attempt: 1,
      owner: 'someone',
      now: T0,
      leaseUntil: T0 + 60_000,
      concurrencyLimit: 1,
    });
    const join = store.joinLine.bind(store);
    store.joinLine = async (input) => {
      await store.finishJob({
        jobId: 'holder',
        owner: 'someone',
        result: { outcome: 'success', startedAt: T0, finishedAt: T0, attempt: 1 },
        expiresAt: T0 + 60_000,
      });
      store.joinLine = join;
      await join(input);
    };

    const response = await worker.deliver([recordFor('waiter', 'limited')]);

    const job = await store.getJob('waiter', worker.clock.now());
    expect(faulty.faults).toBe(1);
    expect(response.batchItemFailures).toEqual([]);
    expect(started).toEqual(['waiter']);
    expect(job?.status).toBe('success');
    expect(await store.waitingCount('limited')).toBe(0);
  });
});
