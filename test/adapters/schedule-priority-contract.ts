import { beforeEach, expect, it } from 'vitest';
import { definition, type Store, type StoreFixture, startingAt, T0 } from './store-fixtures';

/** A schedule's priority, as every store keeps, changes, clears and replaces it. */
export function schedulePriorityContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    store = fixture().store;
  });

  const addSchedule = (id: string, critical: boolean, policy: 'exception' | 'replace' = 'exception') =>
    store.addSchedule({
      schedule: definition(id, critical ? { priority: 'critical' } : {}),
      position: startingAt(T0),
      conflictPolicy: policy,
      now: T0,
    });

  it('keeps a critical priority, in get and list, and has none for a normal schedule', async () => {
    const added = await addSchedule('urgent', true);
    await addSchedule('usual', false);

    const listed = await store.listSchedules({}, { limit: 10 });

    expect(added.schedule.priority).toBe('critical');
    expect(await store.getSchedule('urgent')).toMatchObject({ priority: 'critical' });
    expect(await store.getSchedule('usual')).not.toHaveProperty('priority');
    expect(listed.items.map((schedule) => schedule.priority)).toEqual(['critical', undefined]);
  });

  it('sets it with updateSchedule, clears it with null, and a replace without it drops it', async () => {
    await addSchedule('s', false);

    const update = (changes: { priority: 'critical' | null }, version: number) =>
      store.updateSchedule({ id: 's', changes, now: T0 + version, expectedVersion: version });
    const raised = await update({ priority: 'critical' }, 1);
    const cleared = await update({ priority: null }, 2);
    await update({ priority: 'critical' }, 3);
    const replaced = await addSchedule('s', false, 'replace');

    expect(raised).toMatchObject({ priority: 'critical', version: 2 });
    expect(cleared).not.toHaveProperty('priority');
    expect(cleared.version).toBe(3);
    expect(replaced.schedule).not.toHaveProperty('priority');
    expect(await store.getSchedule('s')).not.toHaveProperty('priority');
  });
}
