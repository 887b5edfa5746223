/** One start of a handler, as its handler saw it. */
export interface StartRecord {
  jobId: string;
  attempt: number;
  /** When the handler started (ms). */
  at: number;
  /** The payload revision it ran with (the soak's updates bump it). */
  rev: number;
}

/** One run of a handler: from its start to when it returned, threw or its process died (ms). */
export interface HandlerSpan {
  jobId: string;
  from: number;
  to: number;
}

/**
 * What the soak's handlers saw: completed executions by job id, every start (with attempt and payload
 * revision), and how many jobs of each task ran at once (a handler that overran its timeout counts
 * until it really stops).
 */
export class ExecutionRecorder {
  /** Completed executions per job id (those of crashed invocations are taken back). */
  readonly executions = new Map<string, number>();
  readonly maxRunning = new Map<string, number>();
  /** Handler runs per task, in the order they ended. */
  readonly spans = new Map<string, HandlerSpan[]>();
  /** Starts per schedule id, in order. */
  readonly starts = new Map<string, StartRecord[]>();
  /** Executions that completed inside an invocation that then crashed (the run is retried: not counted). */
  discardedByCrash = 0;
  /** Executions taken back because their result could not be written while their lease lasted. */
  resultsNotWritten = 0;
  /** Starts of a job whose earlier run died with its worker: the run cut off by a crash, retried. */
  rerunsAfterCrash = 0;
  /** Handler runs started, every task and attempt: the drain goes on while this moves. */
  handlerStarts = 0;
  /** Jobs started again after an execution of theirs had completed and been recorded: double executions. */
  readonly startedAfterCompletion = new Set<string>();
  /** Jobs whose same attempt started twice: double executions too. */
  readonly attemptStartedTwice = new Set<string>();
  /** Completions taken back whose result was written after all (its writer never saw the answer). */
  resultsWrittenUnseen = 0;
  private readonly running = new Map<string, number>();
  /** The attempt of each job's latest completed execution. */
  private readonly completedAttempt = new Map<string, number>();
  /** Completions taken back (crash or unwritten result), by job id: the attempt that completed. */
  private readonly takenBack = new Map<string, number>();
  private readonly attemptStarts = new Set<string>();
  private readonly cutOff = new Set<string>();

  start(task: string, record: StartRecord): void {
    this.handlerStarts += 1;
    const now = (this.running.get(task) ?? 0) + 1;
    this.running.set(task, now);
    this.maxRunning.set(task, Math.max(this.maxRunning.get(task) ?? 0, now));

    const attemptKey = `${record.jobId}#${record.attempt}`;
    if (this.attemptStarts.has(attemptKey)) this.attemptStartedTwice.add(record.jobId);
    this.attemptStarts.add(attemptKey);
    if (this.executions.has(record.jobId)) this.startedAfterCompletion.add(record.jobId);
    if (this.cutOff.delete(record.jobId)) this.rerunsAfterCrash += 1;
    // A job added with add_job (no `@`) is its own "schedule".
    const at = record.jobId.indexOf('@');
    const scheduleId = at < 0 ? record.jobId : record.jobId.slice(0, at);
    const starts = this.starts.get(scheduleId) ?? [];
    starts.push(record);
    this.starts.set(scheduleId, starts);
  }

  /** The handler ended (or its process died): it no longer runs. */
  end(task: string, span: HandlerSpan): void {
    this.running.set(task, (this.running.get(task) ?? 0) - 1);
    const spans = this.spans.get(task) ?? [];
    spans.push(span);
    this.spans.set(task, spans);
  }

  complete(jobId: string, attempt: number): void {
    this.completedAttempt.set(jobId, attempt);
    this.executions.set(jobId, (this.executions.get(jobId) ?? 0) + 1);
  }

  /**
   * Counts again a completion of `jobId` that was taken back, once its result is known to be written
   * (its late answer came, or the store holds it): once, whichever learns it first.
   */
  restore(jobId: string): void {
    if (!this.takenBack.delete(jobId)) return;
    this.executions.set(jobId, (this.executions.get(jobId) ?? 0) + 1);
  }

  /**
   * Completions taken back whose result the store holds after all: a write that applied though its
   * caller saw it fail (its answer lost, then its retries throttled), in an invocation that then died or
   * let the run go. The platform keeps that result and never runs the job again, so the execution
   * stands. A later start of the job is a double execution. `readJob` reads the stored job.
   */
  async restoreWrittenResults(
    readJob: (jobId: string) => Promise<{ status: string; result: { attempt: number } | null } | undefined>,
  ): Promise<void> {
    for (const [jobId, attempt] of [...this.takenBack]) {
      if (this.executions.has(jobId)) continue;
      const job = await readJob(jobId);
      if (job?.status !== 'success' || job.result?.attempt !== attempt) continue;
      this.restore(jobId);
      this.resultsWrittenUnseen += 1;
      const at = jobId.indexOf('@');
      const starts = this.starts.get(at < 0 ? jobId : jobId.slice(0, at)) ?? [];
      if (starts.filter((start) => start.jobId === jobId && start.attempt >= attempt).length > 1)
        this.startedAfterCompletion.add(jobId);
    }
  }

  /** A run of `jobId` died with its worker: its next start is a retry of a cut-off run, not a double. */
  cutOffByCrash(jobId: string): void {
    this.cutOff.add(jobId);
  }

  /**
   * Executions whose result could not be written at all (the store unavailable for the whole lease):
   * to the platform that is a run cut off, retried by the next delivery, like a crash.
   */
  notRecorded(jobIds: readonly string[]): void {
    this.discard(jobIds);
    this.discardedByCrash -= jobIds.length;
    this.resultsNotWritten += jobIds.length;
  }

  /** An invocation died: the executions it completed never got their results written. */
  discard(jobIds: readonly string[]): void {
    for (const jobId of jobIds) {
      const count = (this.executions.get(jobId) ?? 0) - 1;
      if (count > 0) this.executions.set(jobId, count);
      else this.executions.delete(jobId);
      this.takenBack.set(jobId, this.completedAttempt.get(jobId) ?? 0);
      this.discardedByCrash += 1;
      this.cutOff.add(jobId);
    }
  }
}
