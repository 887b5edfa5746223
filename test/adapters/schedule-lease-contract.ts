import { beforeEach, expect, it } from 'vitest';
import { LeaseLostError } from '../../lib/core/errors';
import { scheduleJobId } from '../../lib/core/model/job-id';
import {
  definition,
  failure,
  jobRequest,
  LEASED_AS_ADDED_AT_T0,
  MINUTE,
  range,
  SECOND,
  type Store,
  type StoreFixture,
  T0,
} from './store-fixtures';

const TICK = { now: T0, dueBefore: T0 + 90 * SECOND, leaseMs: MINUTE, limit: 100 };

export function scheduleLeaseContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    store = fixture().store;
  });

  it('leases due schedules only, up to the limit, with all their fields', async () => {
    for (const n of range(5)) {
      await store.addSchedule({
        schedule: definition(`due-${n}`),
        nextFireAt: T0 + n * SECOND,
        conflictPolicy: 'exception',
        now: T0,
      });
    }
    await store.addSchedule({
      schedule: definition('later'),
      nextFireAt: T0 + 10 * MINUTE,
      conflictPolicy: 'exception',
      now: T0,
    });
    await store.addSchedule({
      schedule: definition('finished'),
      nextFireAt: null,
      conflictPolicy: 'exception',
      now: T0,
    });

    const first = await store.acquireDueSchedules({ ...TICK, owner: 'tick-1', limit: 3 });
    const second = await store.acquireDueSchedules({ ...TICK, owner: 'tick-2' });
    const third = await store.acquireDueSchedules({ ...TICK, owner: 'tick-3' });

    expect(first).toHaveLength(3);
    expect(first[0]).toMatchObject({
      ...definition(first[0]?.id ?? ''),
      leaseOwner: 'tick-1',
      leaseUntil: T0 + MINUTE,
      version: 1,
    });
    expect(second).toHaveLength(2);
    expect(new Set([...first, ...second].map((s) => s.id))).toEqual(new Set(range(5).map((n) => `due-${n}`)));
    expect(third).toEqual([]);
  });

  it('releases with the next fire time; when superseded counts the fires sent unless the fire times changed; or reports gone', async () => {
    for (const id of ['next', 'done', 'changed', 'payload', 'retimed', 'removed']) {
      await store.addSchedule({
        schedule: definition(id),
        nextFireAt: T0,
        conflictPolicy: 'exception',
        now: T0,
      });
    }
    await store.acquireDueSchedules({ ...TICK, owner: 'tick' });
    await store.updateSchedule('changed', { payload: 'new' }, T0 + 5 * MINUTE, T0 + 1);
    await store.updateSchedule('payload', { payload: 'new' }, T0, T0 + 1);
    await store.updateSchedule(
      'retimed',
      { trigger: { type: 'interval', seconds: 7 } },
      T0 + 7 * SECOND,
      T0 + 1,
    );
    await store.removeSchedule('removed');
    const release = (id: string, nextFireAt: number | null) =>
      store.releaseSchedule({
        id,
        owner: 'tick',
        leasedVersion: 1,
        leased: LEASED_AS_ADDED_AT_T0,
        nextFireAt,
        lastFireAt: T0 + 85 * SECOND,
        firesDispatched: 1,
        now: T0 + 2,
      });

    const outcomes = [
      await release('next', T0 + 90 * SECOND),
      await release('done', null),
      await release('changed', T0 + 90 * SECOND),
      await release('payload', T0 + 90 * SECOND),
      await release('retimed', T0 + 90 * SECOND),
      await release('removed', T0),
    ];

    expect(outcomes).toEqual([
      'released',
      'released',
      'superseded',
      'released_changed',
      'superseded',
      'gone',
    ]);
    expect(await store.getSchedule('next')).toMatchObject({
      nextFireAt: T0 + 90 * SECOND,
      lastFireAt: T0 + 85 * SECOND,
      leaseOwner: null,
      leaseUntil: null,
    });
    expect(await store.getSchedule('done')).toMatchObject({
      nextFireAt: null,
      lastFireAt: T0 + 85 * SECOND,
      leaseOwner: null,
    });
    // Its fires run as the changed schedule (ADR 0002): counted, while the owner's next fire time stands
    expect(await store.getSchedule('changed')).toMatchObject({
      nextFireAt: T0 + 5 * MINUTE,
      lastFireAt: T0 + 85 * SECOND,
      runs: 1,
      payload: 'new',
      leaseOwner: null,
    });
    // Next fire time unchanged too: the release moves it on, as it would have without the change
    expect(await store.getSchedule('payload')).toMatchObject({
      nextFireAt: T0 + 90 * SECOND,
      lastFireAt: T0 + 85 * SECOND,
      runs: 1,
      payload: 'new',
      version: 2,
    });
    // A new trigger: the fires sent are cancelled (ADR 0002), not counted
    expect(await store.getSchedule('retimed')).toMatchObject({
      nextFireAt: T0 + 7 * SECOND,
      lastFireAt: null,
      runs: 0,
      leaseOwner: null,
    });
    const later = await store.acquireDueSchedules({
      ...TICK,
      owner: 'tick-2',
      now: T0 + 3,
      dueBefore: T0 + 10 * MINUTE,
    });
    expect(later.map((s) => s.id).sort()).toEqual(['changed', 'next', 'payload', 'retimed']);
  });

  it('refuses a release by a tick whose expired lease was taken over', async () => {
    await store.addSchedule({
      schedule: definition('s'),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: T0,
    });
    await store.acquireDueSchedules({ ...TICK, owner: 'slow', leaseMs: SECOND });
    await store.acquireDueSchedules({ ...TICK, owner: 'fast', now: T0 + 2 * SECOND });

    const late = await failure(
      store.releaseSchedule({
        id: 's',
        owner: 'slow',
        leasedVersion: 1,
        leased: LEASED_AS_ADDED_AT_T0,
        nextFireAt: T0 + MINUTE,
        lastFireAt: T0,
        firesDispatched: 1,
        now: T0 + 3 * SECOND,
      }),
    );

    expect(late).toBeInstanceOf(LeaseLostError);
    expect(await store.getSchedule('s')).toMatchObject({ leaseOwner: 'fast', nextFireAt: T0 });
  });

  it("leases a crashed tick's schedule again after its lease expires, and the same job ids dedupe at claim", async () => {
    await store.addSchedule({
      schedule: definition('s'),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: T0,
    });
    const [crashed] = await store.acquireDueSchedules({ ...TICK, owner: 'crashed', leaseMs: 5 * SECOND });
    const firstJobId = scheduleJobId('s', crashed?.nextFireAt ?? -1);
    const firstClaim = await store.claimJob({
      job: jobRequest(firstJobId, { scheduleId: 's', fireTime: T0, origin: 'schedule' }),
      attempt: 1,
      owner: 'w1',
      now: T0,
      leaseUntil: T0 + MINUTE,
    });

    const beforeExpiry = await store.acquireDueSchedules({ ...TICK, owner: 'tick-2', now: T0 + 4 * SECOND });
    const [again] = await store.acquireDueSchedules({ ...TICK, owner: 'tick-3', now: T0 + 6 * SECOND });
    const secondJobId = scheduleJobId('s', again?.nextFireAt ?? -2);
    const secondClaim = await store.claimJob({
      job: jobRequest(secondJobId, { scheduleId: 's', fireTime: T0, origin: 'schedule' }),
      attempt: 1,
      owner: 'w2',
      now: T0 + 6 * SECOND,
      leaseUntil: T0 + MINUTE,
    });

    expect(firstClaim.status).toBe('claimed');
    expect(beforeExpiry).toEqual([]);
    expect(again).toMatchObject({ id: 's', nextFireAt: T0, leaseOwner: 'tick-3' });
    expect(secondJobId).toBe(firstJobId);
    expect(secondClaim.status).toBe('duplicate');
  });

  it('leases one active schedule by id for immediate dispatch', async () => {
    await store.addSchedule({
      schedule: definition('a'),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: T0,
    });
    await store.addSchedule({
      schedule: definition('p', { paused: true }),
      nextFireAt: T0,
      conflictPolicy: 'exception',
      now: T0,
    });

    const leased = await store.leaseSchedule('a', 'admin', T0, MINUTE);
    const leasedTwice = await store.leaseSchedule('a', 'other', T0, MINUTE);
    const paused = await store.leaseSchedule('p', 'admin', T0, MINUTE);
    const missing = await store.leaseSchedule('zzz', 'admin', T0, MINUTE);

    expect(leased).toMatchObject({ id: 'a', leaseOwner: 'admin', leaseUntil: T0 + MINUTE });
    expect([leasedTwice, paused, missing]).toEqual([undefined, undefined, undefined]);
  });
}
