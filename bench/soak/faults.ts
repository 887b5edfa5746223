import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { JobMessage, JobQueue } from '../../lib/core/ports/job-queue';
import type { ScheduleStore } from '../../lib/core/ports/schedule-store';

/** How often each fault strikes (0..1), and whether faults are on at all (off during the drain). */
export interface FaultRates {
  /** A tick dies after SendMessageBatch, before the release (per schedule dispatched). */
  tickCrash: number;
  /** A worker invocation dies mid-job (per job started). */
  workerCrash: number;
  /** A message is sent twice (per message). */
  duplicate: number;
  /** A worker invocation's deletes are lost, so its messages come back (per invocation). */
  lostDelete: number;
  /** A DynamoDB request fails with ProvisionedThroughputExceededException (per request). */
  throttle: number;
}

/** Counts of the faults injected so far. */
export type FaultCounts = Record<keyof FaultRates, number>;

export class Faults {
  enabled = true;
  readonly injected: FaultCounts = { tickCrash: 0, workerCrash: 0, duplicate: 0, lostDelete: 0, throttle: 0 };

  constructor(
    readonly rates: FaultRates,
    private readonly random: () => number = Math.random,
  ) {}

  /** True (and counted) when fault `kind` strikes now. */
  strike(kind: keyof FaultRates): boolean {
    if (!this.enabled || this.random() >= this.rates[kind]) return false;
    this.injected[kind] += 1;
    return true;
  }
}

/** Thrown where a tick process would have died. */
export class InjectedCrash extends Error {
  constructor(where: string) {
    super(`injected crash: ${where}`);
    this.name = 'InjectedCrash';
  }
}

/**
 * A schedule store whose release sometimes "dies" first: the tick has sent the schedule's messages and
 * never releases it, so the lease must expire and a later tick dispatch the same fires again.
 */
export function crashingReleases(store: ScheduleStore, faults: Faults): ScheduleStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== 'releaseSchedule' || typeof value !== 'function') {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async (...args: unknown[]) => {
        if (faults.strike('tickCrash')) throw new InjectedCrash('tick died between send and release');
        return value.apply(target, args);
      };
    },
  });
}

/** A queue that sends some messages twice (as a retried SendMessageBatch can). */
export function duplicatingQueue(queue: JobQueue, faults: Faults): JobQueue {
  return {
    async send(messages: readonly JobMessage[]) {
      const copies = messages.filter(() => faults.strike('duplicate'));
      const [result] = await Promise.all([
        queue.send(messages),
        copies.length > 0 ? queue.send(copies) : Promise.resolve({ failed: [] }),
      ]);
      return result;
    },
    changeVisibility: (receiptHandle, seconds) => queue.changeVisibility(receiptHandle, seconds),
  };
}

/** Makes some requests of `client` fail with throttling before they reach DynamoDB. */
export function injectThrottling(client: DynamoDBClient, faults: Faults): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      if (faults.strike('throttle')) {
        const error = new Error('injected: the level of configured provisioned throughput was exceeded');
        error.name = 'ProvisionedThroughputExceededException';
        Object.assign(error, { $fault: 'client', $metadata: { httpStatusCode: 400 } });
        throw error;
      }
      return next(args);
    },
    { step: 'build', name: 'soakThrottling' },
  );
}
