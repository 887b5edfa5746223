import { afterEach, beforeEach, describe } from 'vitest';
import { concurrencyContract } from './concurrency-contract';
import { counterContract } from './counter-contract';
import { dedupeContract } from './dedupe-contract';
import { dueNoteContract } from './due-note-contract';
import { dueShardLeaseContract } from './due-shard-lease-contract';
import { finishedScheduleContract } from './finished-schedule-contract';
import { fireJobsContract } from './fire-jobs-contract';
import { jobCancellationContract } from './job-cancellation-contract';
import { jobContract } from './job-contract';
import { jobParkingContract } from './job-parking-contract';
import { jobSizeContract } from './job-size-contract';
import { jobTransitionsContract } from './job-transitions-contract';
import { listingCursorContract } from './listing-cursor-contract';
import { overridesAndMetadataContract } from './overrides-and-metadata-contract';
import { rateLimitContract } from './rate-limit-contract';
import { scheduleContract } from './schedule-contract';
import { schedulePriorityContract } from './schedule-priority-contract';
import type { StoreFixture } from './store-fixtures';
import { taskListingContract } from './task-listing-contract';
import { unsuccessfulJobsContract } from './unsuccessful-jobs-contract';
import { waitingLineContract } from './waiting-line-contract';

/**
 * The one behavioural contract of Sundial's durable store, run against every implementation: each
 * test gets a fresh, empty store from `createFixture`.
 */
export function describeStoreContract(name: string, createFixture: () => Promise<StoreFixture>): void {
  describe(`${name} store contract`, () => {
    let fixture: StoreFixture | undefined;
    const current = (): StoreFixture => {
      if (!fixture) throw new Error('the store fixture was not created');
      return fixture;
    };
    beforeEach(async () => {
      fixture = await createFixture();
    });
    afterEach(async () => {
      await fixture?.teardown();
      fixture = undefined;
    });

    describe('schedules', () => scheduleContract(current));
    describe('due shard leases', () => dueShardLeaseContract(current));
    describe('due notes (ADR 0007, 0008)', () => dueNoteContract(current));
    describe('finished schedules and repeat limits', () => finishedScheduleContract(current));
    describe('jobs', () => jobContract(current));
    describe('cancelled jobs', () => jobCancellationContract(current));
    describe('job state transitions (JOB_TRANSITIONS)', () => jobTransitionsContract(current));
    describe('jobs at the size limits', () => jobSizeContract(current));
    describe('jobs of schedule fires', () => fireJobsContract(current));
    describe('jobs of a task', () => taskListingContract(current));
    describe('task counters', () => counterContract(current));
    describe('dedupe records', () => dedupeContract(current));
    describe('parking unsent jobs', () => jobParkingContract(current));
    describe('listing cursors', () => listingCursorContract(current));
    describe('overrides, metadata and descriptions', () => overridesAndMetadataContract(current));
    describe('waiting lines', () => waitingLineContract(current));
    describe('schedule priority', () => schedulePriorityContract(current));
    describe('rate limits', () => rateLimitContract(current));
    describe('under real concurrency', () => concurrencyContract(current));
    describe('unsuccessful jobs of every task', () => unsuccessfulJobsContract(current));
  });
}
