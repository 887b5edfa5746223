import { setTimeout as sleep } from 'node:timers/promises';
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
  /**
   * A DynamoDB write is applied but its answer is lost (a timeout after the request was sent), so the
   * store tries it again on an item it already changed (per write request).
   */
  lostAnswer: number;
  /** A copy of a message lands in the DLQ, to be redriven to the jobs queue later (per message). */
  deadLetterCopy: number;
  /** A handler throws a retryable error on its first attempt (per job). */
  handlerThrows: number;
  /** A handler returns a value DynamoDB cannot store (`1e200`) on its first attempt (per job). */
  unstorableReturn: number;
  /** A handler of the task limited to one running job ignores its signal and runs past its timeout on its first attempt (per job). */
  overrun: number;
  /**
   * A worker invocation dies right after a run of the backlog task ended by handing its slot to the
   * head of the line (ADR 0009: `finishJob` or `retryJob` answered with a woken entry), before it sends
   * the woken job's message (per such hand-off). The woken entry keeps the slot until its message is
   * sent again.
   */
  crashAfterHandOff: number;
  /**
   * With due notes on (ADR 0007): a tick dies after sending a note's fires, before it writes the notes it
   * leaves, or after writing them, before it moves the shard's cursor (per call of either).
   */
  noteCrash: number;
  /** A due-note put takes 8 s to land, within the placement margin (per call). */
  slowNotePut: number;
  /**
   * An `add_jobs` call of the admin API dies after storing its jobs and before sending them (per call
   * that sends): nothing is sent or parked, and the caller gets an error and adds them again.
   */
  lostAdd: number;
}

/** Bursts in which every DynamoDB request is throttled: longer than the store's retries (the SDK does not retry). */
export interface ThrottleBursts {
  everySeconds: number;
  lastingSeconds: number;
}

/** Counts of the faults injected so far. */
export type FaultCounts = Record<keyof FaultRates | 'throttleBursts' | 'throttledInBursts', number>;

export class Faults {
  enabled = true;
  private handOffCrashesOver = false;
  readonly injected: FaultCounts = {
    tickCrash: 0,
    workerCrash: 0,
    duplicate: 0,
    lostDelete: 0,
    throttle: 0,
    lostAnswer: 0,
    deadLetterCopy: 0,
    handlerThrows: 0,
    unstorableReturn: 0,
    overrun: 0,
    crashAfterHandOff: 0,
    noteCrash: 0,
    slowNotePut: 0,
    lostAdd: 0,
    throttleBursts: 0,
    throttledInBursts: 0,
  };
  /** [from, to) of every throttling burst so far (ms). */
  readonly burstPeriods: [number, number][] = [];
  private burstUntil = 0;
  private burstTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly rates: FaultRates,
    readonly bursts: ThrottleBursts,
    private readonly random: () => number = Math.random,
  ) {}

  /**
   * True (and counted) when fault `kind` strikes now. Overruns strike during the drain too: they only
   * slow a run down, and the jobs of the limited task mostly start late, when other faults are off.
   * So do crashes after a hand-off: the backlog task's line mostly drains after the window, and a woken
   * job whose message was lost then is sent again by the tick alone (no job joins the line then).
   */
  strike(kind: keyof FaultRates): boolean {
    const on =
      this.enabled || kind === 'overrun' || (kind === 'crashAfterHandOff' && !this.handOffCrashesOver);
    if (!on || this.random() >= this.rates[kind]) return false;
    this.injected[kind] += 1;
    return true;
  }

  /**
   * Starts the throttling bursts (stopped by `stop`, and never while faults are off): `everySeconds`
   * apart on average, each gap drawn from half to one and a half of it, so that they never lock onto a
   * tick's period (every 60 s, four bursts 15 s apart would strike each tick at the same moment of its
   * run, and fail its reaping tick after tick).
   */
  startBursts(): void {
    const next = () => {
      const gapMs = this.bursts.everySeconds * 1000 * (0.5 + this.random());
      this.burstTimer = setTimeout(() => {
        if (!this.enabled) return;
        this.injected.throttleBursts += 1;
        this.burstUntil = Date.now() + this.bursts.lastingSeconds * 1000;
        this.burstPeriods.push([Date.now(), this.burstUntil]);
        next();
      }, gapMs);
    };
    next();
  }

  /** Crashes after a hand-off stop too: the repairs of the last ones (by a tick alone) get their time. */
  stopHandOffCrashes(): void {
    this.handOffCrashesOver = true;
  }

  stop(): void {
    this.enabled = false;
    const current = this.burstPeriods.at(-1);
    if (current && current[1] > Date.now()) current[1] = Date.now();
    this.burstUntil = 0;
    clearTimeout(this.burstTimer);
  }

  /** True (and counted) when a DynamoDB request is to be throttled now: inside a burst, or at random. */
  throttleNow(): boolean {
    if (this.enabled && Date.now() < this.burstUntil) {
      this.injected.throttledInBursts += 1;
      return true;
    }
    return this.strike('throttle');
  }
}

/** Thrown where a tick process would have died. */
export class InjectedCrash extends Error {
  constructor(where: string) {
    super(`injected crash: ${where}`);
    this.name = 'InjectedCrash';
  }
}

/** How long a slow due-note put takes: inside the placement margin of two 10 s buckets (ADR 0007). */
export const SLOW_NOTE_PUT_MS = 8_000;

/**
 * A schedule store in whose dispatchers a process sometimes "dies": after finishing a schedule whose
 * chain ended, before sending its last fires (the next reader of the note sends them); before writing the
 * successor notes of fires it sent (the next reader reads the same notes again and sends the same fires);
 * before moving its cursor. And some note puts are slow (inside the placement margin, ADR 0007).
 */
export function crashingDispatches(store: ScheduleStore, faults: Faults): ScheduleStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      const notes = property === 'writeDueNotes' || property === 'moveNoteCursor';
      if (property === 'finishSchedule') {
        return async (...args: unknown[]) => {
          const finished = await value.apply(target, args);
          if (faults.strike('tickCrash')) throw new InjectedCrash('dispatcher died between finish and send');
          return finished;
        };
      }
      if (notes) {
        return async (...args: unknown[]) => {
          if (faults.strike('noteCrash')) throw new InjectedCrash(`tick died before ${String(property)}`);
          if (property === 'writeDueNotes' && faults.strike('slowNotePut')) await sleep(SLOW_NOTE_PUT_MS);
          return value.apply(target, args);
        };
      }
      return value.bind(target);
    },
  });
}

/**
 * A queue that sends some messages twice (as a retried SendMessageBatch can), and puts a copy of some in
 * the dead-letter queue (`toDeadLetters`), from where the soak redrives them later.
 */
export function duplicatingQueue(
  queue: JobQueue,
  faults: Faults,
  toDeadLetters: (messages: readonly JobMessage[]) => Promise<void>,
): JobQueue {
  return {
    async send(messages: readonly JobMessage[]) {
      const copies = messages.filter(() => faults.strike('duplicate'));
      const deadLetters = messages.filter(() => faults.strike('deadLetterCopy'));
      const [result] = await Promise.all([
        queue.send(messages),
        copies.length > 0 ? queue.send(copies) : Promise.resolve({ failed: [] }),
        deadLetters.length > 0 ? toDeadLetters(deadLetters) : Promise.resolve(),
      ]);
      return result;
    },
    changeVisibility: (receiptHandle, seconds) => queue.changeVisibility(receiptHandle, seconds),
  };
}

/**
 * Makes some requests of `client` fail with throttling before they reach DynamoDB. The store retries
 * whole `send` calls (its client sends each request once), so every try passes through this middleware.
 */
export function injectThrottling(client: DynamoDBClient, faults: Faults): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      if (faults.throttleNow()) {
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

const WRITE_COMMANDS = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'TransactWriteItemsCommand',
  'BatchWriteItemCommand',
]);

/**
 * Makes some writes of `client` apply and then fail as if their answer was lost on the way back
 * (`TimeoutError`, which the store retries): every write's retry must recognise its own applied try,
 * or take the change it finds for what it is.
 */
export function injectLostAnswers(client: DynamoDBClient, faults: Faults): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const output = await next(args);
      if (WRITE_COMMANDS.has(String(context.commandName)) && faults.strike('lostAnswer')) {
        const error = new Error('injected: the write was applied, but its answer was lost');
        error.name = 'TimeoutError';
        throw error;
      }
      return output;
    },
    { step: 'build', name: 'soakLostAnswers' },
  );
}
