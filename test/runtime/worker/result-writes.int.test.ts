import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { StoreUnavailableError } from '../../../lib/core/errors';
import type { FinishJobInput, JobStore } from '../../../lib/core/ports/job-store';
import { createTestTable, type TestTable } from '../../support/dynamodb';
import { recordFor, workerHarness } from './harness';

let table: TestTable;
let store: DynamoDbStore;

beforeAll(async () => {
  table = await createTestTable('result-writes');
  store = new DynamoDbStore({ client: table.documentClient, tableName: table.tableName });
});

afterAll(async () => {
  await table.drop();
});

/** Longer than any run's lease in these tests: a redelivery after it may take an abandoned run over. */
const AFTER_THE_LEASE_MS = 10 * 60_000;

/** The store, with `finishJob` failing whenever `failure` returns an error for the call. */
function withFailingFinishes(
  target: JobStore,
  failure: (input: FinishJobInput, call: number) => Error | undefined,
): JobStore {
  let calls = 0;
  return new Proxy(target, {
    get(object, property) {
      if (property === 'finishJob') {
        return async (input: FinishJobInput) => {
          calls += 1;
          const error = failure(input, calls);
          if (error) throw error;
          return object.finishJob(input);
        };
      }
      const value = Reflect.get(object, property);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}

function nested(levels: number): unknown {
  let value: unknown = 'bottom';
  for (let level = 0; level < levels; level++) value = { next: value };
  return value;
}

function storeRefusal(): Error {
  const error = new Error('Item size has exceeded the maximum allowed size');
  error.name = 'ValidationException';
  return error;
}

/**
 * Runs job `id` of a task whose handler returns `value`, on a worker over `jobStore`: delivers its
 * message, then (unless `redeliver` is false) delivers it again after the run's lease, as the queue
 * would if the message were kept.
 */
async function runCountedJob(jobStore: JobStore, id: string, value: unknown, redeliver = true) {
  let runs = 0;
  const worker = workerHarness(
    {
      counted: {
        timeoutSeconds: 5,
        handler: () => {
          runs += 1;
          return value;
        },
      },
    },
    {},
    { jobStore },
  );
  const record = recordFor(id, 'counted');
  const first = await worker.deliver([record]);
  worker.clock.advance(AFTER_THE_LEASE_MS);
  if (redeliver) await worker.deliver([record]);
  const job = await store.getJob(id, worker.clock.now());
  return { runs, first, job, worker };
}

describe('worker: results the store cannot take (DynamoDB Local)', () => {
  it.each([
    ['a number DynamoDB cannot hold', { n: 1e200 }, 'must hold numbers from -9007199254740991'],
    ['nesting deeper than DynamoDB allows', nested(40), 'must not nest deeper than 30 levels'],
  ])('records an InvalidReturnValueError for %s and runs the handler once', async (name, value, problem) => {
    // Act
    const { runs, first, job, worker } = await runCountedJob(store, `unstorable-${name.length}`, value);

    // Assess
    expect(runs).toBe(1);
    expect(first.batchItemFailures).toEqual([]);
    expect(job?.status).toBe('error');
    expect(job?.result?.error?.type).toBe('InvalidReturnValueError');
    expect(job?.result?.error?.message).toContain(problem);
    expect(job?.result?.returnValue).toBeUndefined();
    expect(worker.queue.sent).toEqual([]);
  });

  it('keeps trying the result write while the store is unavailable, and records the result without re-running', async () => {
    // Prepare: the first two result writes fail as the store adapter fails once its own retries are spent
    const flaky = withFailingFinishes(store, (_input, call) =>
      call <= 2 ? new StoreUnavailableError('finishJob') : undefined,
    );

    // Act
    const { runs, first, job } = await runCountedJob(flaky, 'flaky-write-1', { sent: 3 });

    // Assess
    expect(runs).toBe(1);
    expect(first.batchItemFailures).toEqual([]);
    expect(job?.status).toBe('success');
    expect(job?.result).toMatchObject({ outcome: 'success', attempt: 1, returnValue: { sent: 3 } });
  });

  it('keeps trying through an outage longer than a few tries but shorter than the lease, without re-running', async () => {
    // Prepare: eight result writes in a row fail (about 10 s of pauses; the run's lease is 5 s + 30 s)
    const down = withFailingFinishes(store, (_input, call) =>
      call <= 8 ? new StoreUnavailableError('finishJob') : undefined,
    );

    // Act
    const { runs, first, job } = await runCountedJob(down, 'outage-write-1', { sent: 4 });

    // Assess
    expect(runs).toBe(1);
    expect(first.batchItemFailures).toEqual([]);
    expect(job?.status).toBe('success');
    expect(job?.result).toMatchObject({ outcome: 'success', attempt: 1, returnValue: { sent: 4 } });
  });

  it('records an error result without the value when the store refuses the value, without re-running', async () => {
    // Prepare: every write that carries a return value is refused
    const refusing = withFailingFinishes(store, (input) =>
      input.result.returnValue === undefined ? undefined : storeRefusal(),
    );

    // Act
    const { runs, first, job, worker } = await runCountedJob(refusing, 'refused-value-1', { sent: 3 });

    // Assess
    expect(runs).toBe(1);
    expect(first.batchItemFailures).toEqual([]);
    expect(job?.status).toBe('error');
    expect(job?.result?.returnValue).toBeUndefined();
    expect(job?.result?.error?.type).toBe('ResultNotStoredError');
    expect(job?.result?.error?.message).toContain('Item size has exceeded the maximum allowed size');
    expect(worker.queue.sent).toEqual([]);
  });

  it('lets go of the message when no result can be written at all, so no redelivery runs the attempt again', async () => {
    // Prepare: the store takes no result write at all
    const down = withFailingFinishes(store, () => new StoreUnavailableError('finishJob'));

    // Act
    const { runs, first, worker } = await runCountedJob(down, 'store-down-1', { sent: 3 }, false);

    // Assess: the message is deleted (a kept one would take the run over once its lease ended)
    expect(runs).toBe(1);
    expect(first.batchItemFailures).toEqual([]);
    expect(worker.logLines.some((line) => line.level === 'ERROR' && line.jobId === 'store-down-1')).toBe(
      true,
    );
  });
});
