import type { ScheduleDefinition } from '../../lib/core/model/schedule';
import type { JobRequest, JobStore } from '../../lib/core/ports/job-store';
import type { ScheduleStore } from '../../lib/core/ports/schedule-store';
import type { TriggerSpec } from '../../lib/core/triggers/schema';

export type Store = ScheduleStore & JobStore;

export interface StoreFixture {
  store: Store;
  /** Overwrites a task's running counter, simulating drift. */
  setRunningCount(task: string, running: number): Promise<void>;
  teardown(): Promise<void>;
}

export const T0 = Date.parse('2026-01-01T00:00:00Z');
export const SECOND = 1_000;
export const MINUTE = 60_000;

export function definition(id: string, overrides: Partial<ScheduleDefinition> = {}): ScheduleDefinition {
  return {
    id,
    task: 'send-report',
    trigger: { type: 'interval', seconds: 5, start_at: '2026-01-01T00:00:00Z' } as unknown as TriggerSpec,
    payload: { to: 'ops@example.com', nested: { list: [1, 'two', null, true] } },
    coalesce: 'latest',
    misfireGraceSeconds: 30,
    maxJitterSeconds: 0,
    tags: ['reports'],
    paused: false,
    ...overrides,
  };
}

export function jobRequest(id: string, overrides: Partial<JobRequest> = {}): JobRequest {
  return {
    id,
    task: 'send-report',
    payload: { n: 1 },
    origin: 'direct',
    scheduleId: null,
    fireTime: null,
    runAt: T0,
    startDeadline: null,
    ...overrides,
  };
}

export function range(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/** What `promise` rejected with; fails the test when it resolves. */
export async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, but the call succeeded');
}
