import type { WorkerSandbox } from './worker-sandbox';

/**
 * The worker's sandboxes, kept warm and reused one invocation at a time, as Lambda reuses a function's
 * sandboxes: an invocation takes an idle one, or a new one when none is idle, and one more is kept
 * starting for the next (a sandbox takes a second or two to load the tasks). A sandbox that ended, or
 * whose handler outlived its deadline, is not reused; after the tasks change, no sandbox of the old
 * tasks takes another invocation.
 */
export class SandboxPool {
  private readonly idle: WorkerSandbox[] = [];
  private readonly live = new Set<WorkerSandbox>();
  private readonly generationOf = new Map<WorkerSandbox, number>();
  private generation = 0;
  private warming: WorkerSandbox | undefined;
  private stopped = false;

  constructor(private readonly launch: () => WorkerSandbox) {}

  /** Starts the first sandbox; resolves once it is ready (or could not start: the first invocation says why). */
  async warmUp(): Promise<void> {
    this.topUp();
    await this.warming?.ready.catch(() => {});
  }

  /** A ready sandbox for one invocation; give it back with {@link release}. Rejects when none can start. */
  async acquire(): Promise<WorkerSandbox> {
    if (this.stopped) throw new Error('the worker sandboxes are stopping');
    const idle = this.idle.pop();
    if (idle) {
      this.topUp();
      return idle;
    }
    const sandbox = this.warming ?? this.start();
    this.warming = undefined;
    try {
      await sandbox.ready;
    } finally {
      this.topUp();
    }
    return sandbox;
  }

  /** Takes back a sandbox after its invocation: kept for the next one if it may run it, else ended. */
  release(sandbox: WorkerSandbox): void {
    if (this.stopped || !sandbox.reusable || this.generationOf.get(sandbox) !== this.generation) {
      void this.end(sandbox);
    } else {
      this.idle.push(sandbox);
    }
  }

  /** The tasks changed: the next invocations run in new sandboxes; busy ones end after their invocation. */
  renew(): void {
    this.generation += 1;
    for (const sandbox of this.idle.splice(0)) void this.end(sandbox);
    if (this.warming) void this.end(this.warming);
    this.warming = undefined;
    this.topUp();
  }

  /** Ends every sandbox, busy or not: their invocations fail, as a stopped Lambda sandbox's do. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.idle.length = 0;
    this.warming = undefined;
    await Promise.all([...this.live].map((sandbox) => this.end(sandbox)));
  }

  private start(): WorkerSandbox {
    const sandbox = this.launch();
    this.live.add(sandbox);
    this.generationOf.set(sandbox, this.generation);
    sandbox.ready.catch(() => this.forget(sandbox));
    return sandbox;
  }

  /** Keeps one sandbox starting while none is idle, so that the next invocation finds one warm. */
  private topUp(): void {
    if (this.stopped || this.idle.length > 0 || this.warming) return;
    const sandbox = this.start();
    this.warming = sandbox;
    sandbox.ready.then(
      () => {
        if (this.warming !== sandbox) return;
        this.warming = undefined;
        this.release(sandbox);
      },
      () => {
        if (this.warming === sandbox) this.warming = undefined;
      },
    );
  }

  private async end(sandbox: WorkerSandbox): Promise<void> {
    this.forget(sandbox);
    await sandbox.end();
  }

  private forget(sandbox: WorkerSandbox): void {
    this.live.delete(sandbox);
    this.generationOf.delete(sandbox);
  }
}
