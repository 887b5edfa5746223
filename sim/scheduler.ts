import type { Clock } from '../lib/core/clock';
import { MinHeap } from './min-heap';
import { Rng } from './rng';

/**
 * A simulated process: one Lambda invocation, one admin call. It dies when the simulation crashes it
 * (at one of its awaits) or when its invocation ends: every call it has in flight, and every one it makes
 * after, never answers, as a dead process's calls do not. Its code reaches the ports through
 * dependencies made for it (`SimPlatform.depsFor`), so each call knows whose it is.
 */
export class SimProcess {
  alive = true;
  readonly died: Promise<void>;
  private markDead!: () => void;

  constructor(
    readonly id: number,
    readonly name: string,
  ) {
    this.died = new Promise((resolve) => {
      this.markDead = resolve;
    });
  }

  kill(): void {
    if (!this.alive) return;
    this.alive = false;
    this.markDead();
  }
}

interface Op {
  proc: SimProcess;
  label: string;
  readyAt: number;
  seq: number;
  execute: () => void;
}

interface Timer {
  at: number;
  seq: number;
  proc: SimProcess | undefined;
  fire: () => void;
  cancelled?: boolean;
}

/** A promise that never settles: what a dead process's call returns. */
const NEVER = new Promise<never>(() => {});

/** How far back the trace goes (steps kept to print when a check fails). */
const TRACE_LENGTH = 400;

/**
 * A deterministic scheduler for the whole system in one process (FoundationDB's and TigerBeetle's idea):
 * simulated time, and every awaited call to a port (the store, the queue) is an operation the scheduler
 * runs when it chooses, in an order a seeded random number generator decides. Between two operations it
 * lets every microtask run (`setImmediate`), so all the code that can run has run, and the next thing
 * that happens is the scheduler's choice: which ready operation goes next, or, when none is ready, time
 * moves on to the next operation's latency or the next sleep. The same seed gives the same run.
 */
export class Simulation {
  time: number;
  readonly startedAt: number;
  readonly rng: Rng;
  crashes = 0;
  /** Every step whose line holds this text is kept in `followed` (`npm run simulate -- --follow`). */
  follow: string | undefined;
  readonly followed: string[] = [];
  /** Invocations that ended with an error (Lambda would report it and, for some, try again). */
  errors = 0;
  /** When a fault last struck: a crash or a failed call (a step it cut short is the next toucher's to repair). */
  lastDisturbanceAt = Number.NEGATIVE_INFINITY;
  readonly clock: Clock = { now: () => this.time };
  steps = 0;
  private seq = 0;
  private processes = 0;
  private readonly waiting = new MinHeap<Op>((a, b) => a.readyAt - b.readyAt || a.seq - b.seq);
  private readonly ready: Op[] = [];
  private readonly timers = new MinHeap<Timer>((a, b) => a.at - b.at || a.seq - b.seq);
  /** The process whose store call runs now, synchronously (`simulatedPort` sets it; a store wrapper may ask). */
  executing: SimProcess | undefined;
  private readonly traceLines: string[] = [];
  private traceNext = 0;

  constructor(seed: number, startAt: number) {
    this.rng = new Rng(seed);
    this.time = startAt;
    this.startedAt = startAt;
  }

  private nextSeq(): number {
    this.seq += 1;
    return this.seq;
  }

  private nextProcessId(): number {
    this.processes += 1;
    return this.processes;
  }

  /** Runs `body` as a new process. */
  spawn<T>(
    name: string,
    body: (proc: SimProcess) => Promise<T>,
  ): { proc: SimProcess; result: Promise<T | undefined> } {
    const proc = new SimProcess(this.nextProcessId(), name);
    const result = Promise.race([
      body(proc).catch((error: unknown) => {
        this.errors += 1;
        this.note(`ERROR ${name}#${proc.id}: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      }),
      proc.died.then(() => undefined),
    ]);
    return { proc, result };
  }

  /**
   * Waits `ms` of simulated time; never returns to `proc` once it died (without one: the simulation's own
   * code, which always goes on). A sleep whose `signal` is aborted never returns either, and no longer
   * keeps the simulation going.
   */
  sleep(ms: number, signal?: AbortSignal, proc?: SimProcess): Promise<void> {
    if ((proc && !proc.alive) || signal?.aborted) return NEVER;
    return new Promise((resolve) => {
      const timer: Timer = {
        at: this.time + Math.max(0, Math.ceil(ms)),
        seq: this.nextSeq(),
        proc,
        fire: resolve,
      };
      signal?.addEventListener('abort', () => {
        timer.cancelled = true;
      });
      this.timers.push(timer);
    });
  }

  /** Ends `proc` at one of its awaits (a crash there). */
  crash(proc: SimProcess, label: string, why: string): void {
    this.crashes += 1;
    this.lastDisturbanceAt = this.time;
    this.note(`CRASH ${proc.name}#${proc.id} at ${label} (${why})`);
    proc.kill();
  }

  /** Ends a process from outside it (its invocation died), unless it ended already. */
  kill(proc: SimProcess, why: string): void {
    if (!proc.alive) return;
    this.crashes += 1;
    this.lastDisturbanceAt = this.time;
    this.note(`CRASH ${proc.name}#${proc.id} (${why})`);
    proc.kill();
  }

  /**
   * Runs `fire` at `at` (the simulation's own events: a tick, a poller waking, an admin call); what it
   * returns cancels it.
   */
  at(at: number, fire: () => void): () => void {
    const timer: Timer = {
      at: Math.max(Math.ceil(at), this.time),
      seq: this.nextSeq(),
      proc: undefined,
      fire,
    };
    this.timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  }

  /**
   * An operation of `proc`: `execute` runs when the scheduler picks it, at least `latencyMs` from now; it
   * must settle the caller's promise (or kill the process). A dead process's operation never runs.
   */
  operation<T>(
    proc: SimProcess,
    label: string,
    latencyMs: number,
    execute: (settle: Settle<T>) => void,
  ): Promise<T> {
    if (!proc.alive) return NEVER;
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({
        proc,
        label,
        readyAt: this.time + Math.max(0, Math.ceil(latencyMs)),
        seq: this.nextSeq(),
        execute: () => execute({ resolve, reject }),
      });
    });
  }

  /**
   * Runs until `done()` (checked after every step) or until nothing is left to happen. A step that only
   * moved time ran no code, so it leaves no microtask to wait for: the next step follows at once (an
   * event loop turn is most of a step's cost).
   */
  async run(done: () => boolean): Promise<void> {
    for (let ranCode = true; ; ) {
      if (ranCode) await drainMicrotasks();
      if (done()) return;
      const stepped = this.step();
      if (stepped === 'nothing left') return;
      ranCode = stepped === 'ran code';
    }
  }

  /** The last steps, oldest first (what led to a failure). */
  trace(): string[] {
    const lines = this.traceLines;
    return [...lines.slice(this.traceNext), ...lines.slice(0, this.traceNext)];
  }

  note(line: string): void {
    if (this.follow !== undefined && line.includes(this.follow))
      this.followed.push(`${this.steps} +${this.time - this.startedAt} ${line}`);
    const entry = `${this.steps} +${this.time - this.startedAt} ${line}`;
    if (this.traceLines.length < TRACE_LENGTH) this.traceLines.push(entry);
    else this.traceLines[this.traceNext] = entry;
    this.traceNext = (this.traceNext + 1) % TRACE_LENGTH;
  }

  /** One step: a ready operation, or time moved to the next thing that happens (and the timers due then). */
  private step(): 'ran code' | 'moved time' | 'nothing left' {
    for (let head = this.waiting.peek(); head && head.readyAt <= this.time; head = this.waiting.peek()) {
      this.ready.push(this.waiting.pop() as Op);
    }
    while (this.ready.length > 0) {
      const index = this.rng.int(this.ready.length);
      const op = this.ready[index] as Op;
      this.ready[index] = this.ready[this.ready.length - 1] as Op;
      this.ready.pop();
      if (!op.proc.alive) continue;
      this.steps += 1;
      this.note(`${op.proc.name}#${op.proc.id} ${op.label}`);
      op.execute();
      return 'ran code';
    }
    const nextOp = this.waiting.peek()?.readyAt ?? Number.POSITIVE_INFINITY;
    while (this.timers.peek()?.cancelled) this.timers.pop();
    const nextTimer = this.timers.peek()?.at ?? Number.POSITIVE_INFINITY;
    const next = Math.min(nextOp, nextTimer);
    if (next === Number.POSITIVE_INFINITY) return 'nothing left';
    this.time = Math.max(this.time, next);
    let fired = false;
    for (let timer = this.timers.peek(); timer && timer.at <= this.time; timer = this.timers.peek()) {
      this.timers.pop();
      if (timer.cancelled || (timer.proc && !timer.proc.alive)) continue;
      timer.fire();
      fired = true;
    }
    return fired ? 'ran code' : 'moved time';
  }
}

export interface Settle<T> {
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (error: unknown) => void;
}

function drainMicrotasks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
