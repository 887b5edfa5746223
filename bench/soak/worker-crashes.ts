import { AsyncLocalStorage } from 'node:async_hooks';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { StoreUnavailableError } from '../../lib/core/errors';
import type { RuntimeDeps } from '../../lib/runtime/dependencies';
import { type Faults, InjectedCrash } from './faults';
import type { JobTrace } from './job-trace';
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
  /** Jobs whose last `finishJob` failed because the store was unavailable. */
  storeUnavailable: Set<string>;
  die: (error: Error) => void;
}

const never = <T>() => new Promise<T>(() => {});

/**
 * Worker crashes: each batch runs as one "process" (an AsyncLocalStorage context). When a handler
 * decides its process dies, every store and queue call of that invocation hangs from then on (nothing
 * more is written), the batch is abandoned without deleting its messages, and the jobs it claimed keep
 * their leases until the reaper (or a redelivery) takes them over.
 */
export class CrashableWorkers {
  private readonly context = new AsyncLocalStorage<Invocation>();
  private invocations = 0;

  constructor(
    private readonly base: RuntimeDeps,
    private readonly faults: Faults,
    private readonly recorder: ExecutionRecorder,
    private readonly trace: JobTrace,
  ) {}

  /** Who makes a call now, for the job trace: the worker invocation (and whether it died), or `tick/admin`. */
  readonly caller = (): string => {
    const invocation = this.context.getStore();
    if (!invocation) return 'tick/admin';
    return invocation.crashed ? `${invocation.label} (dead)` : invocation.label;
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
  completed(jobId: string): void {
    this.recorder.complete(jobId);
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
              if (property === 'finishJob') this.acknowledge(invocation, args[0] as { jobId: string });
              return invocation.crashed ? never() : answer;
            },
            (error: unknown) => {
              if (property === 'finishJob') {
                const { jobId } = args[0] as { jobId: string };
                if (error instanceof StoreUnavailableError) invocation.storeUnavailable.add(jobId);
                else invocation.storeUnavailable.delete(jobId);
              }
              throw error;
            },
          );
        };
      },
    });
  }

  /** The result is written: the execution stands even if the process dies right after. */
  private acknowledge(invocation: Invocation, input: { jobId: string }): void {
    invocation.unacknowledged.delete(input.jobId);
    if (invocation.discarded.delete(input.jobId)) this.recorder.complete(input.jobId);
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
