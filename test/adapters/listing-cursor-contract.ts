import fc from 'fast-check';
import { beforeEach, expect, it } from 'vitest';
import { ValidationError } from '../../lib/core/errors';
import {
  definition,
  failure,
  jobRequest,
  MINUTE,
  range,
  type Store,
  type StoreFixture,
  startingAt,
  T0,
} from './store-fixtures';

/** A cursor works only with the listing (and filter) that handed it out; anything else is invalid input. */
export function listingCursorContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(async () => {
    store = fixture().store;
    for (const n of range(3)) {
      await store.addSchedule({
        schedule: definition(`s-${n}`, { task: n % 2 ? 'odd' : 'even' }),
        position: startingAt(T0 + MINUTE),
        conflictPolicy: 'exception',
        now: T0,
      });
      const job = jobRequest(`j-${n}`, { task: 'a', scheduleId: 's-0', runAt: T0 + n });
      await store.claimJob({ job, attempt: 1, owner: 'w', now: T0, leaseUntil: T0 + MINUTE });
    }
  });

  const firstPageCursors = async () => {
    const cursors = {
      schedules: (await store.listSchedules({}, { limit: 1 })).cursor,
      evenSchedules: (await store.listSchedules({ task: 'even' }, { limit: 1 })).cursor,
      jobsOfTask: (await store.listJobs({ task: 'a' }, { limit: 1 }, T0)).cursor,
      jobsOfSchedule: (await store.listJobs({ scheduleId: 's-0' }, { limit: 1 }, T0)).cursor,
    };
    for (const cursor of Object.values(cursors)) expect(cursor).toEqual(expect.any(String));
    return cursors as Record<keyof typeof cursors, string>;
  };

  const expectCursorRejected = async (listing: Promise<unknown>) => {
    const error = await failure(listing);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((issue) => issue.path)).toEqual(['cursor']);
    expect((error as ValidationError).message.length).toBeLessThan(300);
  };

  it('refuses a cursor of another listing or another filter', async () => {
    const cursors = await firstPageCursors();

    await expectCursorRejected(store.listJobs({ task: 'a' }, { limit: 1, cursor: cursors.schedules }, T0));
    await expectCursorRejected(store.listSchedules({}, { limit: 1, cursor: cursors.jobsOfTask }));
    await expectCursorRejected(store.listSchedules({}, { limit: 1, cursor: cursors.evenSchedules }));
    await expectCursorRejected(
      store.listSchedules({ task: 'odd' }, { limit: 1, cursor: cursors.evenSchedules }),
    );
    await expectCursorRejected(store.listJobs({ task: 'b' }, { limit: 1, cursor: cursors.jobsOfTask }, T0));
    await expectCursorRejected(
      store.listJobs({ task: 'a', status: 'running' }, { limit: 1, cursor: cursors.jobsOfTask }, T0),
    );
    await expectCursorRejected(
      store.listJobs({ scheduleId: 's-0' }, { limit: 1, cursor: cursors.jobsOfTask }, T0),
    );
    await expectCursorRejected(
      store.listJobs({ scheduleId: 's-1' }, { limit: 1, cursor: cursors.jobsOfSchedule }, T0),
    );
  });

  it('still pages with its own cursors after refusing foreign ones', async () => {
    const cursors = await firstPageCursors();

    const schedules = await store.listSchedules({}, { limit: 5, cursor: cursors.schedules });
    const jobs = await store.listJobs({ task: 'a' }, { limit: 5, cursor: cursors.jobsOfTask }, T0);

    expect(schedules.items.map((schedule) => schedule.id)).toEqual(['s-1', 's-2']);
    expect(jobs.items.map((job) => job.id)).toEqual(['j-1', 'j-0']);
  });

  it('refuses tampered cursors as invalid input naming the cursor', async () => {
    const cursors = await firstPageCursors();
    const decoded = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const encoded = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const reshaped = Object.values(cursors).flatMap((cursor) => {
      const original = decoded(cursor);
      return [
        {},
        [],
        null,
        'text',
        { ...original, extra: 1 },
        Object.fromEntries(Object.keys(original).map((key) => [key, { nested: true }])),
        Object.fromEntries(Object.keys(original).map((key) => [key, ''])),
        Object.fromEntries(Object.keys(original).map((key) => [key, 'x'.repeat(3000)])),
      ].map(encoded);
    });
    const arbitraryJson = fc.sample(fc.jsonValue({ maxDepth: 3 }), { numRuns: 40, seed: 7 }).map(encoded);
    const garbage = ['garbage', '!!!', 'e30', Buffer.from('not json').toString('base64url')];

    for (const cursor of [...reshaped, ...arbitraryJson, ...garbage]) {
      await expectCursorRejected(store.listSchedules({}, { limit: 1, cursor }));
      await expectCursorRejected(store.listJobs({ task: 'a' }, { limit: 1, cursor }, T0));
    }
  });
}
