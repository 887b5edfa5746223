/** What the soak's handlers saw: executions by job id, and how many jobs of each task ran at once. */
export class ExecutionRecorder {
  /** Completed executions per job id (those of crashed invocations are taken back). */
  readonly executions = new Map<string, number>();
  readonly maxRunning = new Map<string, number>();
  /** Executions that completed inside an invocation that then crashed (the run is retried: not counted). */
  discardedByCrash = 0;
  private readonly running = new Map<string, number>();

  start(task: string): void {
    const now = (this.running.get(task) ?? 0) + 1;
    this.running.set(task, now);
    this.maxRunning.set(task, Math.max(this.maxRunning.get(task) ?? 0, now));
  }

  /** The handler ended (or its process died): it no longer runs. */
  end(task: string): void {
    this.running.set(task, (this.running.get(task) ?? 0) - 1);
  }

  complete(jobId: string): void {
    this.executions.set(jobId, (this.executions.get(jobId) ?? 0) + 1);
  }

  /** An invocation died: the executions it completed never got their results written. */
  discard(jobIds: readonly string[]): void {
    for (const jobId of jobIds) {
      const count = (this.executions.get(jobId) ?? 0) - 1;
      if (count > 0) this.executions.set(jobId, count);
      else this.executions.delete(jobId);
      this.discardedByCrash += 1;
    }
  }
}
