import { AsyncLocalStorage } from 'node:async_hooks';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { LeaseLostError, StoreUnavailableError } from '../../lib/core/errors';
import type { JobMessageBody } from '../../lib/core/model/job-message';
import type { RunEnd } from '../../lib/core/ports/job-store';
import type { WokenEntry } from '../../lib/core/ports/waiting-line';
import type { RuntimeDeps } from '../../lib/runtime/dependencies';
import { type Faults, InjectedCrash } from './faults';
import { DEAD, type JobTrace } from './job-trace';
import type { ExecutionRecorder } from './recorder';

/** One worker invocation, as a process that may die. */
interface Invocation {
  /** `inv<n>`, for the job trace. */
  label: string;
  crashed: boolean;
  /** Jobs whose handler completed but whose result is not written yet. */
  unacknowledged: Set<string>;
  /** Completions taken back when the invocation died. */
  discarded: Set<string>;
  /** Jobs whose handler runs now in this invocation. */
  inFlight: Set<string>;
  /** Jobs whose `finishJob` failed because the store was unavailable (and was not refused otherwise since). */
  storeUnavailable: Set<string>;
  /** Slots this invocation's claims took and has not given back yet: task and lease end, by job id. */
  slots: Map<string, { task: string; leaseUntil: number }>;
  /** The tasks whose line this invocation put a job in (its joiner re-checks the counter after). */
  joinedTasks: Set<string>;
  die: (error: Error) => void;
}

/** A slot that a dead invocation's run kept: taken until its lease ends and the reaper gives it back. */
export interface DeadHold {
  task: string;
  jobId: string;
  /** When the invocation died (ms). */
  from: number;
  /** Until when the slot was kept (ms): the run's lease end, or its result written after the death. */
  to: number;
  /** The run's lease end (ms): a slot kept until then is given back (or handed on) by the reaper. */
  leaseUntil: number;
}

/**
 * An invocation died after putting a job of `task` in its line: the joiner's re-check of the counter
 * (which wakes the line for a slot that came back meanwhile) may be lost with it, and then only the
 * next worker or tick that touches the task wakes the line.
 */
export interface LostWaking {
  task: string;
  at: number;
}

const never = <T>() => new Promise<T>(() => {});

type JoinInput = { message: JobMessageBody };

/**
 * Worker crashes: each batch runs as one "process" (an AsyncLocalStorage context). When a handler
 * decides its process dies, every store and queue call of that invocation hangs from then on (nothing
 * more is written), the batch is abandoned without deleting its messages, and the jobs it claimed keep
 * their leases until the reaper (or a redelivery) takes them over. A process of a task in
 * `handOffCrashTasks` may also die right after a run's ending handed its slot to the head of the line
 * (ADR 0009), before the woken job's message is sent: the woken entry keeps the slot, and the next
 * worker or tick that touches the task must send its message again once it is overdue.
 */
export class CrashableWorkers {
  /** Slots kept by the runs of invocations that died, for the free-slot check of the backlog task. */
  readonly deadHolds: DeadHold[] = [];
  /** Invocations that died with a join of a line behind them (see `LostWaking`). */
  readonly lostWakings: LostWaking[] = [];
  private readonly context = new AsyncLocalStorage<Invocation>();
  private invocations = 0;

  /** `handOffCrashTasks`: the tasks whose invocations may die between a hand-off and the woken job's send. */
  constructor(
    private readonly base: RuntimeDeps,
    private readonly faults: Faults,
    private readonly recorder: ExecutionRecorder,
    private readonly trace: JobTrace,
    private readonly handOffCrashTasks: ReadonlySet<string> = new Set(),
  ) {}

  /** Who makes a call now, for the job trace: the worker invocation (and whether it died), or `tick/admin`. */
  readonly caller = (): string => {
    const invocation = this.context.getStore();
    if (!invocation) return 'tick/admin';
    return invocation.crashed ? `${invocation.label}${DEAD}` : invocation.label;
  };

  /** The dependencies of the current invocation (pass as the worker handler's `getDeps`). */
  readonly deps = (): RuntimeDeps => {
    const invocation = this.context.getStore();
    if (!invocation) return this.base;
    return {
      ...this.base,
      jobStore: this.guard(this.base.jobStore, invocation),
      scheduleStore: this.guard(this.base.scheduleStore, invocation),
      queue: this.guard(this.base.queue, invocation),
    };
  };

  /** For a task handler: whether its process is dead (or dies now). A dead handler must never return. */
  dead(): boolean {
    const invocation = this.context.getStore();
    if (!invocation) return false;
    if (!invocation.crashed && this.faults.strike('workerCrash')) this.crash(invocation);
    return invocation.crashed;
  }

  /** For a task handler: it starts running `jobId` (in this invocation). */
  started(jobId: string): void {
    this.context.getStore()?.inFlight.add(jobId);
  }

  /** For a task handler: it stopped running `jobId` (returned, threw, or its process died). */
  ended(jobId: string): void {
    this.context.getStore()?.inFlight.delete(jobId);
  }

  /** For a task handler that completed: counted unless its process dies before the result is written. */
  completed(jobId: string, attempt: number): void {
    this.recorder.complete(jobId, attempt);
    this.context.getStore()?.unacknowledged.add(jobId);
  }

  /** Runs one batch; rejects when its process died (the event source then deletes nothing). */
  invoke(
    handler: (event: SQSEvent) => Promise<SQSBatchResponse>,
    event: SQSEvent,
  ): Promise<SQSBatchResponse> {
    let die: (error: Error) => void = () => {};
    const died = new Promise<never>((_, reject) => {
      die = reject;
    });
    died.catch(() => {});
    this.invocations += 1;
    const invocation: Invocation = {
      label: `inv${this.invocations}`,
      crashed: false,
      unacknowledged: new Set(),
      discarded: new Set(),
      inFlight: new Set(),
      storeUnavailable: new Set(),
      slots: new Map(),
      joinedTasks: new Set(),
      die,
    };
    for (const record of event.Records) {
      this.trace.add(
        jobIdInBody(record.body),
        invocation.label,
        `received ${describeBody(record.body)} (receive ${record.attributes.ApproximateReceiveCount})`,
      );
    }
    const run = this.context.run(invocation, () => handler(event));
    return Promise.race([run, died]).then((response) => {
      // Completed, but no result written while the lease lasted: the worker let the run go (a later
      // delivery takes it over), as a crash would have.
      const notWritten = [...invocation.unacknowledged].filter((jobId) =>
        invocation.storeUnavailable.has(jobId),
      );
      for (const jobId of notWritten)
        this.trace.add(jobId, invocation.label, 'completed, result never written');
      if (notWritten.length > 0) this.recorder.notRecorded(notWritten);
      if (!this.faults.strike('lostDelete')) return response;
      for (const record of event.Records)
        this.trace.add(jobIdInBody(record.body), invocation.label, 'deletes lost');
      return { batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })) };
    });
  }

  private crash(invocation: Invocation): void {
    invocation.crashed = true;
    const at = Date.now();
    for (const [jobId, { task, leaseUntil }] of invocation.slots)
      this.deadHolds.push({ task, jobId, from: at, to: leaseUntil, leaseUntil });
    for (const task of invocation.joinedTasks) this.lostWakings.push({ task, at });
    this.trace.callerDied(invocation.label);
    for (const jobId of invocation.unacknowledged) invocation.discarded.add(jobId);
    this.recorder.discard([...invocation.unacknowledged]);
    for (const jobId of invocation.inFlight) {
      this.recorder.cutOffByCrash(jobId);
      this.trace.add(jobId, invocation.label, 'invocation died while the handler ran');
    }
    invocation.die(new InjectedCrash('worker invocation died mid-job'));
  }

  /** Calls go through until the process dies; then (and for calls still in flight) they never answer. */
  private guard<T extends object>(target: T, invocation: Invocation): T {
    return new Proxy(target, {
      get: (object, property) => {
        const value = Reflect.get(object, property);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (invocation.crashed) return never();
          const result = value.apply(object, args) as Promise<unknown>;
          return result.then(
            (answer) => {
              this.trackSlot(invocation, property, args[0], answer);
              if (property === 'finishJob') this.acknowledge(invocation, args[0] as { jobId: string });
              if (property === 'joinLine')
                invocation.joinedTasks.add((args[0] as JoinInput).message.job.task);
              if (!invocation.crashed && this.diesAfterHandOff(property, answer)) {
                const woken = (answer as RunEnd).woken as WokenEntry;
                this.trace.add(
                  woken.message.job.id,
                  invocation.label,
                  'invocation died before sending its message',
                );
                this.crash(invocation);
              }
              return invocation.crashed ? never() : answer;
            },
            (error: unknown) => {
              if (property === 'finishJob') {
                const { jobId } = args[0] as { jobId: string };
                // An unavailable store can outlast the lease: the write then learns it lost the run,
                // and the result is still one that could not be written while the lease lasted.
                if (error instanceof StoreUnavailableError) invocation.storeUnavailable.add(jobId);
                else if (!(error instanceof LeaseLostError)) invocation.storeUnavailable.delete(jobId);
              }
              if (error instanceof LeaseLostError) this.trackSlot(invocation, property, args[0], undefined);
              throw error;
            },
          );
        };
      },
    });
  }

  /**
   * A run's ending (`finishJob`, `retryJob`) of a task in `handOffCrashTasks` that handed its slot to
   * a waiting job: the process dies before it sends the woken job's message, if the fault strikes.
   */
  private diesAfterHandOff(property: string | symbol, answer: unknown): boolean {
    if (property !== 'finishJob' && property !== 'retryJob') return false;
    const { woken } = answer as RunEnd;
    return (
      woken !== undefined && this.handOffCrashTasks.has(woken.task) && this.faults.strike('crashAfterHandOff')
    );
  }

  /** Follows the slots the invocation holds: taken by a claim with a limit, given back by the run's end. */
  private trackSlot(
    invocation: Invocation,
    property: string | symbol,
    input: unknown,
    answer: unknown,
  ): void {
    const fields = input as {
      job?: { id: string; task: string };
      jobId?: string;
      concurrencyLimit?: number;
      leaseUntil?: number;
    };
    if (property === 'claimJob' && fields.job && fields.concurrencyLimit !== undefined) {
      if ((answer as { status?: string }).status === 'claimed') {
        const slot = { task: fields.job.task, leaseUntil: Number(fields.leaseUntil) };
        invocation.slots.set(fields.job.id, slot);
        // A claim that lands after its process died holds the slot until the run's lease ends too.
        if (invocation.crashed)
          this.deadHolds.push({
            task: slot.task,
            jobId: fields.job.id,
            from: Date.now(),
            to: slot.leaseUntil,
            leaseUntil: slot.leaseUntil,
          });
      }
    }
    if ((property === 'finishJob' || property === 'retryJob') && fields.jobId) {
      invocation.slots.delete(fields.jobId);
      // A result written after the process died gave the slot back then, not at the lease's end.
      if (invocation.crashed) {
        const hold = this.deadHolds.findLast((dead) => dead.jobId === fields.jobId);
        if (hold) hold.to = Math.min(hold.to, Date.now());
      }
    }
  }

  /** The result is written: the execution stands even if the process dies right after. */
  private acknowledge(invocation: Invocation, input: { jobId: string }): void {
    invocation.unacknowledged.delete(input.jobId);
    if (invocation.discarded.delete(input.jobId)) this.recorder.restore(input.jobId);
  }
}

interface BodyFields {
  job?: { id?: unknown };
  attempt?: unknown;
  revision?: { version?: unknown };
}

function parseBody(body: string): BodyFields {
  try {
    return JSON.parse(body) as BodyFields;
  } catch {
    return {};
  }
}

function jobIdInBody(body: string): string {
  return String(parseBody(body).job?.id ?? '?');
}

function describeBody(body: string): string {
  const { attempt, revision } = parseBody(body);
  return `attempt ${String(attempt)}${revision ? ` rev v${String(revision.version)}` : ''}`;
}
