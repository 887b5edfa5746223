import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { DynamoDbStore } from '../../../lib/adapters/dynamodb/dynamodb-store';
import type { JobMessageBody } from '../../../lib/core/model/job-message';
import type { WokenEntry } from '../../../lib/core/ports/waiting-line';
import { createTestTable, localDynamoDbClient, type TestTable } from '../../support/dynamodb';
import { jobRequest, limitedClaim, MINUTE, SUCCESS, T0 } from '../store-fixtures';

const waiter: JobMessageBody = { job: jobRequest('waiter', { task: 'limited' }), attempt: 1 };
const waiting = (id: string): JobMessageBody => ({ job: jobRequest(id, { task: 'limited' }), attempt: 1 });

type TransactInput = { TransactItems?: { Update?: { ConditionExpression?: string } }[] };

/** A transaction that gives a slot back to the counter while its `joins` is unchanged. */
const returnsSlot = (input: TransactInput) =>
  (input.TransactItems ?? []).some((item) => item.Update?.ConditionExpression?.includes('joins'));

/**
 * A client that runs `meanwhile` once, just before the first TransactWriteItems that `which` picks is
 * sent (by default its first: an ending's hand-off of its slot to the head it read; `returnsSlot`: the
 * moment between the store's read of the line and a slot's return).
 */
function clientActingBefore(
  meanwhile: () => Promise<unknown>,
  which: (input: TransactInput) => boolean = () => true,
) {
  const client = localDynamoDbClient(inject('dynamodbEndpoint'));
  let done = false;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (
        context.commandName === 'TransactWriteItemsCommand' &&
        !done &&
        which(args.input as TransactInput)
      ) {
        done = true;
        await meanwhile();
      }
      return next(args);
    },
    { step: 'initialize', name: 'actBeforeTransaction' },
  );
  return client;
}

/**
 * ADR 0009: a slot goes back to the counter only while nobody joined the line since the store read it.
 * A job that joins in between (and so read the counter while the slot was still taken) is handed the
 * slot instead: nobody is left waiting beside a free slot, whatever happens to the ender after its write.
 */
describe('a slot coming back while the line changes', () => {
  let table: TestTable;
  const clients: DynamoDBClient[] = [];
  const storeOn = (client: DynamoDBClient) => {
    clients.push(client);
    return new DynamoDbStore({ client, tableName: table.tableName, shards: 1 });
  };

  beforeEach(async () => {
    table = await createTestTable('slot-back-race');
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    await table.drop();
  });

  it('goes to the job that joined between the read of the line and the return, never back to the counter', async () => {
    // Prepare: the one slot is held; the waiter's join (and its read of the counter) lands in the ender's gap
    const joiner = storeOn(localDynamoDbClient(inject('dynamodbEndpoint')));
    let joinerSaw: number | undefined;
    const ender = storeOn(
      clientActingBefore(async () => {
        joinerSaw = (await joiner.joinLine({ message: waiter, now: T0 }))?.running;
      }, returnsSlot),
    );
    await ender.claimJob(limitedClaim('holder', 1));

    // Act
    const end = await ender.finishJob({
      jobId: 'holder',
      owner: 'w-holder',
      result: SUCCESS,
      expiresAt: T0 + MINUTE,
    });

    // Assess: the joiner saw the slot taken, so the ender's write had to hand it on
    expect(joinerSaw).toBe(1);
    expect(end.job.status).toBe('success');
    expect(end.woken?.message.job.id).toBe('waiter');
    expect(end.woken?.withSlot).toBe(true);
    expect((await joiner.taskSlots('limited'))?.running).toBe(1);
    expect(await joiner.lineHead('limited')).toBeUndefined();
  });

  it('goes to the next job when another slot coming back took the head it read, never back to the counter', async () => {
    // Prepare: both slots held, two jobs waiting; the other ending hands its slot to the head in this ending's gap
    const other = storeOn(localDynamoDbClient(inject('dynamodbEndpoint')));
    const ender = storeOn(
      clientActingBefore(() =>
        other.finishJob({ jobId: 'second', owner: 'w-second', result: SUCCESS, expiresAt: T0 + MINUTE }),
      ),
    );
    await other.claimJob(limitedClaim('first', 2));
    await other.claimJob(limitedClaim('second', 2));
    await other.joinLine({ message: waiting('head'), now: T0 + 1 });
    await other.joinLine({ message: waiting('next'), now: T0 + 2 });

    // Act
    const end = await ender.finishJob({
      jobId: 'first',
      owner: 'w-first',
      result: SUCCESS,
      expiresAt: T0 + MINUTE,
    });

    // Assess: both slots went on, one to each waiting job
    expect(end.job.status).toBe('success');
    expect(end.woken?.message.job.id).toBe('next');
    expect((await other.taskSlots('limited'))?.running).toBe(2);
    expect(await other.lineHead('limited')).toBeUndefined();
  });

  it('goes to the waiting job when the task is resumed between the read of the counter and the return', async () => {
    // Prepare: the one slot is held, the task paused, a job waiting; the resume lands in the ender's gap
    const admin = storeOn(localDynamoDbClient(inject('dynamodbEndpoint')));
    let resumeSaw: number | undefined;
    const ender = storeOn(
      clientActingBefore(async () => {
        resumeSaw = (await admin.setTaskPaused('limited', false)).running;
      }, returnsSlot),
    );
    await admin.claimJob(limitedClaim('holder', 1));
    await admin.joinLine({ message: waiter, now: T0 });
    await admin.setTaskPaused('limited', true);

    // Act
    const end = await ender.finishJob({
      jobId: 'holder',
      owner: 'w-holder',
      result: SUCCESS,
      expiresAt: T0 + MINUTE,
    });

    // Assess: the resume saw no free slot to wake a job for, so the ender's write had to hand it on
    expect(resumeSaw).toBe(1);
    expect(end.woken?.message.job.id).toBe('waiter');
    expect((await admin.taskSlots('limited'))?.running).toBe(1);
    expect(await admin.lineHead('limited')).toBeUndefined();
  });

  it("leaves a woken entry that came to carry its job's retry while an earlier attempt's delivery gave it back", async () => {
    // Prepare: `a` attempt 1 is woken with the slot of the holder's ending, and its retry (attempt 2)
    // waits behind it; a wake settles the retry into the woken entry in the releaser's gap
    const waker = storeOn(localDynamoDbClient(inject('dynamodbEndpoint')));
    let wokenInGap: WokenEntry[] = [];
    const releaser = storeOn(
      clientActingBefore(async () => {
        wokenInGap = await waker.wakeHeads({
          task: 'limited',
          now: T0 + 2_000,
          count: 1,
          take: 'slot',
          limit: 2,
        });
      }),
    );
    await waker.claimJob(limitedClaim('holder', 2));
    await waker.joinLine({ message: waiting('a'), now: T0 });
    const handed = await waker.finishJob({
      jobId: 'holder',
      owner: 'w-holder',
      result: SUCCESS,
      expiresAt: T0 + MINUTE,
    });
    await waker.joinLine({ message: { ...waiting('a'), attempt: 2 }, now: T0 + 1_000 });

    // Act: attempt 1's delivery (its claim refused: the job moved on) gives its woken entry back
    const released = await releaser.releaseWoken({
      task: 'limited',
      position: handed.woken?.position ?? '',
      copy: { attempt: 1 },
      now: T0 + 3_000,
    });

    // Assess: the entry, now attempt 2's, keeps its slot; the wake that moved it in returned it to send
    const movedIn = expect.objectContaining({
      withSlot: true,
      movedIn: true,
      message: expect.objectContaining({ attempt: 2 }),
    });
    expect(released).toEqual({ status: 'gone' });
    expect(wokenInGap).toEqual([movedIn]);
    expect(await waker.overdueWoken('limited', T0 + 60 * MINUTE)).toEqual([
      expect.objectContaining({ withSlot: true, message: expect.objectContaining({ attempt: 2 }) }),
    ]);
    expect((await waker.taskSlots('limited'))?.running).toBe(1);
    expect(await waker.lineHead('limited')).toBeUndefined();
  });
});
