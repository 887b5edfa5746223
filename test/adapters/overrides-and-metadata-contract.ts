import { beforeEach, expect, it } from 'vitest';
import { ValidationError } from '../../lib/core/errors';
import {
  definition,
  failure,
  jobRequest,
  MINUTE,
  type Store,
  type StoreFixture,
  startingAt,
  T0,
} from './store-fixtures';

const overrides = { maxAttempts: 2, backoffSeconds: 30, timeoutSeconds: 10, resultTtlSeconds: 600 };
const metadata = { tenant: 'acme', tier: 'gold' };

/** Overrides of a task's run settings, metadata and descriptions, as every store keeps and lists them. */
export function overridesAndMetadataContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    store = fixture().store;
  });

  const addSchedule = (id: string, fields: Parameters<typeof definition>[1] = {}, policy = 'exception') =>
    store.addSchedule({
      schedule: definition(id, fields),
      position: startingAt(T0),
      conflictPolicy: policy as 'exception' | 'replace',
      now: T0,
    });

  it('keeps a schedule’s overrides, metadata and description, and leaves them out when it has none', async () => {
    await addSchedule('with', { overrides, metadata, description: 'Hourly sync of acme' });
    await addSchedule('without');

    expect(await store.getSchedule('with')).toMatchObject({
      overrides,
      metadata,
      description: 'Hourly sync of acme',
    });
    const without = await store.getSchedule('without');
    expect(without).not.toHaveProperty('overrides');
    expect(without).not.toHaveProperty('metadata');
    expect(without).not.toHaveProperty('description');
  });

  it('changes them with updateSchedule, clears them with null, and a replace without them drops them', async () => {
    await addSchedule('s', { overrides, metadata, description: 'first' });

    const changed = await store.updateSchedule({
      id: 's',
      changes: { overrides: { maxAttempts: 9 }, metadata: { tenant: 'globex' }, description: 'second' },
      now: T0 + 1,
      expectedVersion: 1,
    });
    const cleared = await store.updateSchedule({
      id: 's',
      changes: { overrides: null, metadata: null, description: null },
      now: T0 + 2,
      expectedVersion: 2,
    });
    await store.updateSchedule({
      id: 's',
      changes: { overrides, metadata, description: 'third' },
      now: T0 + 3,
      expectedVersion: 3,
    });
    const replaced = await addSchedule('s', {}, 'replace');

    expect(changed).toMatchObject({
      overrides: { maxAttempts: 9 },
      metadata: { tenant: 'globex' },
      description: 'second',
    });
    expect(changed.overrides).toEqual({ maxAttempts: 9 });
    for (const schedule of [cleared, replaced.schedule, await store.getSchedule('s')]) {
      expect(schedule).not.toHaveProperty('overrides');
      expect(schedule).not.toHaveProperty('metadata');
      expect(schedule).not.toHaveProperty('description');
    }
  });

  it('lists the schedules whose metadata has every entry of the filter, across pages', async () => {
    for (const [id, team] of [
      ['a', 'ops'],
      ['b', 'billing'],
      ['c', 'ops'],
      ['d', 'ops'],
      ['e', 'ops'],
    ]) {
      await addSchedule(id as string, {
        metadata: { team: team as string, region: id === 'e' ? 'us' : 'eu' },
      });
    }
    await addSchedule('f');
    const filter = { metadata: { team: 'ops', region: 'eu' } };

    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.listSchedules(filter, { limit: 1, ...(cursor && { cursor }) });
      ids.push(...page.items.map((schedule) => schedule.id));
      cursor = page.cursor;
    } while (cursor);
    const first = await store.listSchedules(filter, { limit: 1 });
    const elsewhere = await failure(
      store.listSchedules({ metadata: { team: 'ops' } }, { limit: 1, cursor: first.cursor ?? '' }),
    );

    expect(ids).toEqual(['a', 'c', 'd']);
    expect(elsewhere).toBeInstanceOf(ValidationError);
  });

  it('keeps a job’s overrides and metadata from its creation, its claim and its cancellation', async () => {
    await store.createJob({
      job: jobRequest('created', { overrides, metadata }),
      conflictPolicy: 'exception',
      now: T0,
      parkUntilDue: false,
    });
    await store.claimJob({
      job: jobRequest('claimed', { overrides: { maxAttempts: 1 }, metadata: { tenant: 'globex' } }),
      attempt: 1,
      owner: 'w',
      now: T0,
      leaseUntil: T0 + MINUTE,
    });
    await store.cancelJob('cancelled', T0, T0 + MINUTE, jobRequest('cancelled', { metadata }));
    await store.createJob({
      job: jobRequest('plain'),
      conflictPolicy: 'exception',
      now: T0,
      parkUntilDue: false,
    });

    expect(await store.getJob('created', T0)).toMatchObject({ overrides, metadata });
    expect(await store.getJob('claimed', T0)).toMatchObject({
      overrides: { maxAttempts: 1 },
      metadata: { tenant: 'globex' },
    });
    expect((await store.getJob('cancelled', T0))?.metadata).toEqual(metadata);
    const plain = await store.getJob('plain', T0);
    expect(plain).not.toHaveProperty('overrides');
    expect(plain).not.toHaveProperty('metadata');
  });

  it('lists the jobs of a task whose metadata has every entry of the filter, across pages', async () => {
    for (const [index, tenant] of ['acme', 'globex', 'acme', 'acme'].entries()) {
      await store.createJob({
        job: jobRequest(`job-${index}`, { runAt: T0 + index * MINUTE, metadata: { tenant } }),
        conflictPolicy: 'exception',
        now: T0,
        parkUntilDue: false,
      });
    }

    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.listJobs(
        { task: 'send-report', metadata: { tenant: 'acme' } },
        { limit: 1, ...(cursor && { cursor }) },
        T0,
      );
      ids.push(...page.items.map((job) => job.id));
      cursor = page.cursor;
    } while (cursor);

    expect(ids).toEqual(['job-3', 'job-2', 'job-0']);
  });
}
