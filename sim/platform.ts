import type { SQSEvent } from 'aws-lambda';
import { MemoryStore } from '../lib/adapters/memory/memory-store';
import type { DispatcherInvoker, DispatchRequest } from '../lib/core/ports/dispatcher-invoker';
import type { EventPublisher, SundialEvent } from '../lib/core/ports/event-publisher';
import { type AdminApi, createAdminApi } from '../lib/runtime/admin';
import { readConfig } from '../lib/runtime/config';
import type { RuntimeDeps } from '../lib/runtime/dependencies';
import { adminDependencies } from '../lib/runtime/handlers/admin';
import { createDispatcherHandler } from '../lib/runtime/handlers/dispatcher';
import { createTickHandler } from '../lib/runtime/handlers/tick';
import { createWorkerHandler, type WorkerHandler } from '../lib/runtime/handlers/worker';
import { createLogger, discardLines } from '../lib/runtime/observability/logger';
import { taskLimitsOf } from '../lib/runtime/task-limits';
import type { TaskRegistry } from '../lib/runtime/tasks/registry';
import { type FaultRates, type Latency, NO_FAULTS, simulatedPort } from './ports';
import { type QueueFaults, SimDeadLetters, SimQueue } from './queue';
import type { Rng } from './rng';
import type { SimProcess, Simulation } from './scheduler';

/** The deployed Lambdas' limits, as the construct sets them (lib/infra). */
const TICK_TIMEOUT_MS = 60_000;
const WORKER_TIMEOUT_MS = 90_000;
const WORKER_BATCH_SIZE = 10;
const MAX_RECEIVE_COUNT = 5;
/**
 * After an empty receive a poller receives again on this grid (SQS long polling answers as soon as one
 * comes; the grid stands for the time its answer takes).
 */
const EMPTY_POLL_MS = 250;
/** An invocation that dies (`invocationDies`) does within this long of its start: while its handlers run. */
const INVOCATION_DIES_WITHIN_MS = 4_000;
/**
 * The store's operations whose lost answers the simulation lets the store's own retry meet (see
 * `FaultRates.answerLostRetried`): single conditional writes of the DynamoDB store that tell their own
 * earlier try, which the memory store tells as well.
 */
const RETRIED_AFTER_LOST_ANSWER = [
  'claimJob',
  'markWokenResent',
  'postponeWoken',
  'bookRateWake',
  'finishSchedule',
  'startCappedRun',
  'releaseDueShard',
] as const;

export interface PlatformFaults {
  store: FaultRates;
  queue: QueueFaults;
  /** The event bus refuses a publish. */
  eventsRefused: number;
  /** An asynchronous invoke of the dispatcher is refused (the tick releases its shards). */
  invokeRefused: number;
  /** The tick's rule fires twice for one minute (EventBridge delivers at least once). */
  tickTwice: number;
  /**
   * A worker invocation dies at a random moment of its first seconds, while its handlers run (the sandbox
   * ran out of memory, its host went away): what it claimed is taken over or reaped once its lease ends.
   */
  invocationDies: number;
  /**
   * The worker of a run vanishes right after a schedule change aimed at it answered: its takeover (or
   * reaping) comes after the change, the case a takeover's check must tell from a first start.
   */
  vanishesAfterChange: number;
}

export const QUIET: PlatformFaults = {
  store: NO_FAULTS,
  queue: { sendFails: 0, sendAnswerLost: 0, duplicate: 0, deleteLost: 0, visibilityRefused: 0, travelMs: 0 },
  eventsRefused: 0,
  invokeRefused: 0,
  tickTwice: 0,
  invocationDies: 0,
  vanishesAfterChange: 0,
};

export interface PlatformOptions {
  sim: Simulation;
  rng: Rng;
  registry: TaskRegistry;
  /** The faults now (the run turns them off for its quiet end). */
  faults: () => PlatformFaults;
  storeLatency: Latency;
  /** Concurrent worker invocations (the event source mapping's maximum concurrency). */
  workers: number;
}

/**
 * The whole platform in one process over the memory store: the tick every minute (as the EventBridge
 * rule runs it), the dispatchers it invokes, the worker invocations the event source mapping makes from
 * the simulated queue, and the admin API — the deployed handlers, with the deployed configuration.
 * Every store, queue, bus and invoke call is an operation of the simulation.
 */
export class SimPlatform {
  readonly store = new MemoryStore();
  readonly queue: SimQueue;
  readonly deadLetters: SimDeadLetters;
  readonly published: SundialEvent[] = [];
  readonly calls = new Map<string, number>();
  /**
   * Per job, how many of its deliveries stopped short: their invocation died, or they gave their message
   * back to be delivered again (a store call failed). Each may leave an attempt claimed and unanswered.
   */
  readonly cutShort = new Map<string, number>();
  /** Per worker invocation, the jobs it claimed and has not ended yet (carried-on jobs too). */
  private readonly claimsOf = new Map<SimProcess, Set<string>>();
  /** The store as a process calls it. */
  private readonly storeFor: (proc: SimProcess) => MemoryStore;
  /** What every process's dependencies share: the configuration, the clock, ids, logs. */
  private readonly shared: Pick<
    RuntimeDeps,
    'config' | 'clock' | 'random' | 'newId' | 'logger' | 'metricsSink'
  >;
  ticks = 0;
  invocations = 0;
  dispatcherRuns = 0;
  private stopped = false;
  /** The pollers whose last receive came back empty, each waiting for the next message it can see. */
  private readonly idle = new Set<IdlePoller>();

  constructor(private readonly options: PlatformOptions) {
    const { sim, rng, faults } = options;
    this.queue = new SimQueue(
      sim,
      rng.fork(),
      {
        visibilityTimeoutMs: 6 * WORKER_TIMEOUT_MS,
        maxReceiveCount: MAX_RECEIVE_COUNT,
        latency: { minMs: 5, maxMs: 30, slowChance: 0.01, slowMs: 500 },
      },
      () => faults().queue,
    );
    this.queue.onVisibleAt = (at) => {
      for (const poller of this.idle) this.wakeAt(poller, at);
    };
    this.deadLetters = new SimDeadLetters(sim);
    this.storeFor = simulatedPort(sim, this.store, {
      name: 'store',
      faults: () => faults().store,
      latency: options.storeLatency,
      rng: rng.fork(),
      synchronous: ['noteShardOf'],
      retriedAfterLostAnswer: RETRIED_AFTER_LOST_ANSWER,
      calls: this.calls,
    });
    const logger = createLogger({
      level: 'error',
      sink: (line) => sim.note(`LOG ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`),
    });
    this.shared = {
      config: {
        ...readConfig({ SUNDIAL_TABLE_NAME: 'sim', SUNDIAL_QUEUE_URL: 'https://sqs.sim/sundial-jobs' }),
        taskLimits: taskLimitsOf(options.registry),
      },
      clock: sim.clock,
      random: rng.fork().next,
      newId: sequentialIds(),
      logger,
      metricsSink: discardLines,
    };
  }

  /**
   * The runtime's dependencies as `proc` has them: each store, queue, bus and invoke call is its
   * operation, and a sleep never returns to it once it died.
   */
  private depsFor(proc: SimProcess): RuntimeDeps {
    const { sim } = this.options;
    const store = this.storeFor(proc);
    return {
      ...this.shared,
      scheduleStore: store,
      jobStore: this.trackingClaims(store, proc),
      queue: this.queue.senderFor(proc),
      events: this.publisher(proc),
      deadLetters: this.deadLetters.senderFor(proc),
      dispatcherInvoker: this.invoker(proc),
      sleep: (ms, signal) => sim.sleep(ms, signal, proc),
    };
  }

  /** Starts the tick's rule and the event source mapping's pollers. */
  start(): void {
    const { sim } = this.options;
    const firstTick = Math.ceil(sim.time / 60_000) * 60_000;
    sim.at(firstTick, () => this.tickEveryMinute(firstTick));
    for (let poller = 0; poller < this.options.workers; poller++) this.poll(poller, this.newSandbox());
  }

  stop(): void {
    this.stopped = true;
  }

  /**
   * An admin call as the admin Lambda makes it: in a process of its own, with an admin API of its own
   * (a cold sandbox: what an API keeps between calls, such as the shard cursors its chain starter made
   * sure of, never carries over, so every call makes its own sure).
   */
  callAdmin(request: Record<string, unknown>): Promise<Awaited<ReturnType<AdminApi>> | undefined> {
    const { sim } = this.options;
    const { proc, result } = sim.spawn(`admin:${String(request.action)}`, (call) =>
      createAdminApi(adminDependencies(this.depsFor(call), this.options.registry))(request),
    );
    sim.at(sim.time + TICK_TIMEOUT_MS, () => proc.kill());
    return result;
  }

  private tickEveryMinute(at: number): void {
    if (this.stopped) return;
    const { sim, rng, faults } = this.options;
    this.runTick();
    if (rng.chance(faults().tickTwice)) sim.at(sim.time + rng.between(0, 5_000), () => this.runTick());
    sim.at(at + 60_000 + rng.between(0, 2_000), () => this.tickEveryMinute(at + 60_000));
  }

  private runTick(): void {
    const { sim } = this.options;
    this.ticks += 1;
    const { proc } = sim.spawn('tick', (tick) => createTickHandler(() => this.depsFor(tick))());
    sim.at(sim.time + TICK_TIMEOUT_MS, () => proc.kill());
  }

  private invoker(proc: SimProcess): DispatcherInvoker {
    const { sim, rng, faults } = this.options;
    return {
      invoke: (request: DispatchRequest) =>
        sim.operation(proc, 'lambda.invoke(dispatcher)', rng.between(5, 40), (settle) => {
          if (rng.chance(faults().invokeRefused)) {
            settle.reject(
              Object.assign(new Error('too many requests'), { name: 'TooManyRequestsException' }),
            );
            return;
          }
          sim.at(sim.time + rng.between(10, 300), () => this.runDispatcher(request));
          settle.resolve();
        }),
    };
  }

  /** A dispatcher invocation (the construct sets no retries of its asynchronous invocations). */
  private runDispatcher(request: DispatchRequest): void {
    const { sim } = this.options;
    this.dispatcherRuns += 1;
    const { proc } = sim.spawn('dispatcher', (dispatcher) =>
      createDispatcherHandler(() => this.depsFor(dispatcher))(request),
    );
    sim.at(sim.time + TICK_TIMEOUT_MS, () => proc.kill());
  }

  private publisher(proc: SimProcess): EventPublisher {
    const { sim, rng, faults } = this.options;
    return {
      publish: (events) =>
        sim.operation(proc, 'events.publish', rng.between(5, 30), (settle) => {
          if (rng.chance(faults().eventsRefused)) {
            settle.reject(Object.assign(new Error('event bus throttled'), { name: 'ThrottlingException' }));
            return;
          }
          this.published.push(...events);
          settle.resolve();
        }),
    };
  }

  /**
   * A worker sandbox: its handler (and what it keeps between invocations) until it crashes. Its
   * invocations run one after the other, each making its calls as its own process: work an invocation
   * left behind never answers once it ended, as a frozen sandbox's does not.
   */
  private newSandbox(): Sandbox {
    const { sim } = this.options;
    const depsOfInvocation = () => this.depsFor(invocationOf(sandbox));
    const sandbox: Sandbox = {
      invocation: undefined,
      handler: createWorkerHandler(depsOfInvocation, this.options.registry, {
        endSandbox: () =>
          sim.crash(invocationOf(sandbox), 'worker', 'sandbox ended: a handler ignored its signal'),
      }),
    };
    return sandbox;
  }

  /** The job store with each invocation's claims noted, so that its death cuts short each job it held. */
  private trackingClaims(port: MemoryStore, invocation: SimProcess): MemoryStore {
    const held = (jobId: string, claimed: boolean) => {
      const claims = this.claimsOf.get(invocation) ?? new Set<string>();
      if (claimed) claims.add(jobId);
      else claims.delete(jobId);
      this.claimsOf.set(invocation, claims);
    };
    return new Proxy(port, {
      get: (object, property) => {
        const value = Reflect.get(object, property, object);
        if (typeof value !== 'function') return value;
        if (property === 'claimJob') {
          return async (input: Parameters<MemoryStore['claimJob']>[0]) => {
            const outcome = await object.claimJob(input);
            if (outcome.status === 'claimed') held(input.job.id, true);
            return outcome;
          };
        }
        if (property === 'finishJob' || property === 'retryJob') {
          return async (input: { jobId: string }) => {
            const ended = await (value as (input: unknown) => Promise<unknown>).call(object, input);
            held(input.jobId, false);
            return ended;
          };
        }
        return value.bind(object);
      },
    });
  }

  /** Wakes an idle poller at the first point of its grid at or after `visibleAt`, unless it wakes sooner. */
  private wakeAt(idle: IdlePoller, visibleAt: number): void {
    const { sim } = this.options;
    const polls = Math.max(1, Math.ceil((visibleAt - idle.emptyAt) / EMPTY_POLL_MS));
    const at = idle.emptyAt + polls * EMPTY_POLL_MS;
    if (at >= idle.wakesAt) return;
    idle.cancelWake?.();
    idle.wakesAt = at;
    idle.cancelWake = sim.at(at, () => {
      this.idle.delete(idle);
      this.poll(idle.poller, idle.sandbox);
    });
  }

  private countCutShort(jobId: string): void {
    this.cutShort.set(jobId, (this.cutShort.get(jobId) ?? 0) + 1);
  }

  /** One poller of the event source mapping: receives a batch, invokes a worker with it, deletes what it handled. */
  private poll(poller: number, sandbox: Sandbox): void {
    const { sim } = this.options;
    if (this.stopped) return;
    const records = this.queue.receive(WORKER_BATCH_SIZE);
    if (records.length === 0) {
      const idle: IdlePoller = { poller, sandbox, emptyAt: sim.time, wakesAt: Number.POSITIVE_INFINITY };
      this.idle.add(idle);
      const next = this.queue.nextVisibleAt();
      if (next !== undefined) this.wakeAt(idle, next);
      return;
    }
    this.invocations += 1;
    sim.note(
      `RECEIVE worker${poller} ${records.map((record) => `${jobIdOf(record.body)}(${record.attributes.ApproximateReceiveCount})`).join(' ')}`,
    );
    const deadline = sim.time + WORKER_TIMEOUT_MS;
    const event: SQSEvent = { Records: records };
    const context = { getRemainingTimeInMillis: () => deadline - sim.time };
    const { proc, result } = sim.spawn(`worker${poller}`, (invocation) => {
      sandbox.invocation = invocation;
      return sandbox.handler(event, context);
    });
    sim.at(deadline, () => proc.kill());
    if (this.options.rng.chance(this.options.faults().invocationDies)) {
      const diesAt = sim.time + this.options.rng.between(0, INVOCATION_DIES_WITHIN_MS);
      sim.at(diesAt, () => sim.kill(proc, 'the invocation died'));
    }
    void result.then((response) => {
      const died = !proc.alive || response === undefined;
      proc.kill();
      const failed = new Set(died ? [] : response.batchItemFailures.map((failure) => failure.itemIdentifier));
      const cut = new Set(died ? (this.claimsOf.get(proc) ?? []) : []);
      this.claimsOf.delete(proc);
      for (const record of records) {
        if (!died && !failed.has(record.messageId)) this.queue.delete(record.receiptHandle);
        else cut.add(jobIdOf(record.body));
      }
      for (const jobId of cut) this.countCutShort(jobId);
      this.poll(poller, died ? this.newSandbox() : sandbox);
    });
  }
}

/**
 * A poller between two receives. It receives again at the first point of its grid (`EMPTY_POLL_MS` from
 * its empty receive) where a message can be seen: what receiving on that grid all along would do, without
 * the empty receives in between (each a step of the simulation).
 */
interface IdlePoller {
  poller: number;
  sandbox: Sandbox;
  emptyAt: number;
  wakesAt: number;
  cancelWake?: () => void;
}

/** A worker sandbox's handler, and the invocation it runs now (one at a time). */
interface Sandbox {
  handler: WorkerHandler;
  invocation: SimProcess | undefined;
}

function invocationOf(sandbox: Sandbox): SimProcess {
  if (!sandbox.invocation) throw new Error('a sandbox made a call before its first invocation');
  return sandbox.invocation;
}

function jobIdOf(body: string): string {
  return /"job":\{"id":"([^"]*)"/.exec(body)?.[1] ?? '?';
}

/** Ids `id-1`, `id-2`, …: unique, and the same in every replay of a seed. */
function sequentialIds(): () => string {
  let next = 0;
  return () => {
    next += 1;
    return `id-${next}`;
  };
}
