import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import { sendWoken } from '../../../lib/runtime/flow/woken';
import { createTestTable, type TestTable } from '../../support/dynamodb';
import { losingFirstAnswer } from '../../support/lost-answers';
import { jobRequest, T0 } from '../support';
import { recordFor, workerHarness } from './harness';

let table: TestTable;
beforeAll(async () => {
  table = await createTestTable('line-answers');
});
afterAll(() => table.drop());

/** A transaction that wakes a waiting job (it deletes its WAIT# entry): an own turn, or a run's end handing its slot on. */
const isWake = (command: unknown) =>
  command instanceof TransactWriteCommand &&
  (command.input.TransactItems ?? []).some((item) => String(item.Delete?.Key?.sk).startsWith('WAIT#'));

/**
 * A worker of task `limited` (limited to 1) over a DynamoDB store whose first command that `matches`
 * loses its answer, with the one slot held by job `holder` (ids are unique per test: the table is shared).
 */
async function limitedTaskWithSlotHeld(matches: (command: unknown) => boolean, holder = 'holder') {
  const faulty = losingFirstAnswer(table.documentClient, matches);
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
  await store.claimJob({
    job: jobRequest(holder, { task: 'limited' }),
    attempt: 1,
    owner: 'someone',
    now: T0,
    leaseUntil: T0 + 60_000,
    concurrencyLimit: 1,
  });
  const holderEnds = () =>
    store.finishJob({
      jobId: holder,
      owner: 'someone',
      result: { outcome: 'success', startedAt: T0, finishedAt: T0, attempt: 1 },
      expiresAt: T0 + 60_000,
    });
  return { faulty, store, started, worker, holderEnds };
}

describe('a job taking its own turn in its line while the store loses an answer', () => {
  it('runs the job when the wake-up of its own entry is retried after it applied (never losing it)', async () => {
    // The one slot is held; it comes back right as the waiter joins the line (the join race)
    const { faulty, store, started, worker, holderEnds } = await limitedTaskWithSlotHeld(isWake);
    const join = store.joinLine.bind(store);
    store.joinLine = async (input) => {
      await holderEnds();
      store.joinLine = join;
      return join(input);
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

describe('a run whose end handed its slot on but whose answer was lost', () => {
  it('still returns the job it woke, whose message is then sent, rather than a woken entry no message follows', async () => {
    // Prepare: `waiter-2` joins the line while `holder-2` runs
    const { faulty, store, started, worker, holderEnds } = await limitedTaskWithSlotHeld(isWake, 'holder-2');
    await worker.deliver([recordFor('waiter-2', 'limited')]);

    // Act: the run ends handing its slot to the head (the answer of that write is lost and retried), as a worker ends it
    const end = await holderEnds();
    if (end.woken) await sendWoken(worker.deps, [end.woken]);
    await worker.deliver(worker.queuedRecords());

    // Assess
    expect(faulty.faults).toBe(1);
    expect(end.woken?.message.job.id).toBe('waiter-2');
    expect(started).toEqual(['waiter-2']);
    expect(await store.waitingCount('limited')).toBe(0);
  });
});

/** The booking of a rate-limited task's wake-up (a conditional update of its counter). */
const isRateBooking = (command: unknown) =>
  command instanceof UpdateCommand &&
  Object.values(command.input.ExpressionAttributeNames ?? {}).includes('rateWakeAt');

describe('a booking of a rate-limited wake-up that applied but whose answer was lost', () => {
  it('is its booker’s, and still the only booking for that start', async () => {
    // Prepare: the task has a counter; the first booking's answer is lost and retried
    const faulty = losingFirstAnswer(table.documentClient, isRateBooking);
    const store = new DynamoDbStore({
      client: faulty.client,
      tableName: table.tableName,
      sleep: async () => {},
    });
    await store.setTaskPaused('rated', false);

    // Act
    const first = await store.bookRateWake({ task: 'rated', at: T0 + 1_000, token: 'call-1', now: T0 });
    const second = await store.bookRateWake({ task: 'rated', at: T0 + 1_000, token: 'call-2', now: T0 });

    // Assess
    expect(faulty.faults).toBe(1);
    expect(first).toBe(true);
    expect(second).toBe(false);
  });
});
