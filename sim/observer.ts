import type { Job } from '../lib/core/model/job';
import type { JobContext } from '../lib/runtime/tasks/define-task';
import type { SimProcess, Simulation } from './scheduler';
import { SIM_TASKS, type SimPayload, type SimTask } from './tasks';

/** One run of a simulated handler, from its start to its end (it returned, threw, or its process died). */
export interface HandlerRun {
  task: SimTask;
  jobId: string;
  attempt: number;
  rev: number;
  /** How long its payload says it runs (`SimPayload.ms`; an `overrun` runs past its timeout). */
  plannedMs: number;
  startedAt: number;
  returned: boolean;
  over: boolean;
  /** The worker invocation it runs in. */
  invocation: SimProcess | undefined;
}

/** What a handler start is checked against in the store: the job as stored when it started. */
export type ReadJob = (jobId: string) => Promise<Job | undefined>;

/**
 * Watches every handler of the simulation and checks, at each start, the promises that must hold at
 * every moment: no task runs more jobs at once than its `maxRunningJobs`, none starts more than its
 * `rateLimit` in any window, no attempt of a job starts twice, no job starts again once its success
 * is stored (unless `retry_job` was asked for it), and none starts a later attempt once `cancel_job`
 * asked it to stop while it ran. A broken one is recorded with the trace that led to it.
 */
export class Observer {
  readonly violations: string[] = [];
  /** When the first violation happened: ms of simulated time since the run began, and its step. */
  firstViolation: { atMs: number; step: number } | undefined;
  /** Handler starts per job id, in order. */
  readonly starts = new Map<string, HandlerRun[]>();
  handlerStarts = 0;
  private readonly running = new Map<SimTask, number>();
  private readonly attempts = new Set<string>();
  private readonly recentStarts = new Map<SimTask, number[]>();
  private readonly retried = new Set<string>();
  /** The highest attempt claimed of each job (by creation: `add_job` may replace it). */
  private readonly claimedAttempts = new Map<string, number>();
  /** The worker invocation that claimed each attempt (`jobId#attempt`) last: where its handler runs. */
  private readonly claimants = new Map<string, SimProcess>();
  /** The payload revision each job (by creation) first started with. */
  private readonly startedRevs = new Map<string, number>();
  /**
   * Per job id and creation token: when the check of the claim that fixed its definition began (its
   * `started_at`: the latest claim that carried a fire check). A first start at any attempt runs that.
   */
  private readonly definitionClaims = new Map<string, Map<string, number>>();
  /** Per job creation (`id#createToken`): the attempt that ran when `cancel_job` asked it to stop. */
  private readonly cancelAsked = new Map<string, number>();

  constructor(
    private readonly sim: Simulation,
    private readonly readJob: ReadJob,
    /** Extra checks of a start against what the workload did (a change the start must respect). */
    private readonly checkStart: (run: HandlerRun, definedAt: number) => string | undefined = () => undefined,
    /** Told of every handler start as it happens. */
    private readonly onStart: (run: HandlerRun) => void = () => {},
  ) {}

  started(task: SimTask, context: JobContext, payload: SimPayload): HandlerRun {
    const run: HandlerRun = {
      task,
      jobId: context.jobId,
      attempt: context.attempt,
      rev: payload.rev,
      plannedMs: payload.run === 'overrun' ? SIM_TASKS[task].timeoutSeconds * 1000 + payload.ms : payload.ms,
      startedAt: this.sim.time,
      returned: false,
      over: false,
      invocation: this.claimants.get(`${context.jobId}#${context.attempt}`),
    };
    this.handlerStarts += 1;
    const runs = this.starts.get(run.jobId) ?? [];
    runs.push(run);
    this.starts.set(run.jobId, runs);
    this.sim.note(`START ${run.jobId} attempt ${run.attempt} (${task})`);

    const running = (this.running.get(task) ?? 0) + 1;
    this.running.set(task, running);
    const limit = (SIM_TASKS[task] as { maxRunningJobs?: number }).maxRunningJobs;
    if (limit !== undefined && running > limit) {
      this.violate(`task '${task}' runs ${running} jobs at once (limit ${limit}) as ${run.jobId} starts`);
    }
    this.checkRate(task, run);
    run.invocation?.died.then(() => this.ended(run));
    this.onStart(run);
    const definitions = new Map(this.definitionClaims.get(run.jobId));
    void this.readJob(run.jobId).then((job) => {
      // A job replaced by `add_job` (never while it runs) is another creation: its attempts count anew.
      const attemptKey = `${run.jobId}#${job?.createToken ?? ''}#${run.attempt}`;
      if (this.attempts.has(attemptKey)) this.violate(`${run.jobId} attempt ${run.attempt} started twice`);
      this.attempts.add(attemptKey);
      // A later attempt goes on with the job as it started: a schedule change governs a fire's first start only.
      const jobKey = `${run.jobId}#${job?.createToken ?? ''}`;
      const firstRev = this.startedRevs.get(jobKey);
      if (firstRev === undefined) this.startedRevs.set(jobKey, run.rev);
      else if (firstRev !== run.rev) {
        this.violate(
          `${run.jobId} attempt ${run.attempt} ran payload revision ${run.rev}, but an earlier attempt ran revision ${firstRev}`,
        );
      }
      const askedDuring = this.cancelAsked.get(jobKey);
      if (askedDuring !== undefined && run.attempt > askedDuring) {
        this.violate(
          `${run.jobId} started attempt ${run.attempt} after cancel_job asked it to stop while attempt ${askedDuring} ran`,
        );
      }
      if (job?.status === 'success' && !this.retried.has(run.jobId)) {
        this.violate(`${run.jobId} started (attempt ${run.attempt}) after its success was stored`);
      }
      // A schedule change governs a fire's first start, at whatever attempt (a takeover's or the reaper's,
      // when the worker of the run it continues vanished before its handler began), as of the check
      // before the claim that fixed its definition (ADR 0002).
      const definedAt = definitions.get(job?.createToken ?? '');
      if (firstRev === undefined && definedAt !== undefined) {
        const problem = this.checkStart(run, definedAt);
        if (problem) this.violate(problem);
      }
    });
    return run;
  }

  /**
   * `claimant` took `job` (as the store answered; `checked`: the claim carried a fire check, which fixes
   * the run's definition, its `started_at` the check's read): attempt numbers never go back.
   */
  claimed(job: Job, checked: boolean, claimant?: SimProcess): void {
    if (claimant) this.claimants.set(`${job.id}#${job.attempt}`, claimant);
    const definitions = this.definitionClaims.get(job.id) ?? new Map<string, number>();
    const token = job.createToken ?? '';
    if (checked || !definitions.has(token)) definitions.set(token, job.startedAt ?? job.createdAt);
    this.definitionClaims.set(job.id, definitions);
    const key = `${job.id}#${job.createToken ?? ''}`;
    const highest = this.claimedAttempts.get(key) ?? 0;
    if (job.attempt < highest) {
      this.violate(`${job.id} was claimed as attempt ${job.attempt} after attempt ${highest} was claimed`);
    }
    this.claimedAttempts.set(key, Math.max(highest, job.attempt));
  }

  returned(run: HandlerRun): void {
    run.returned = true;
  }

  ended(run: HandlerRun): void {
    if (run.over) return;
    run.over = true;
    this.running.set(run.task, (this.running.get(run.task) ?? 0) - 1);
  }

  /** `retry_job` was called for the job: it may start again after a success, or after `cancel_job` stopped it. */
  retryAsked(jobId: string): void {
    this.retried.add(jobId);
    for (const key of this.cancelAsked.keys()) if (key.startsWith(`${jobId}#`)) this.cancelAsked.delete(key);
  }

  /**
   * `cancel_job` answered that it asked `jobId` to stop while `attempt` ran: no later attempt of that
   * creation of the job may start (every claim after the request sees it and ends the job).
   */
  cancelAskedWhileRunning(jobId: string, attempt: number): void {
    void this.readJob(jobId).then((job) => {
      if (job?.cancelRequestedAt === undefined) return; // replaced since by another creation
      const key = `${jobId}#${job.createToken ?? ''}`;
      this.cancelAsked.set(key, Math.min(attempt, this.cancelAsked.get(key) ?? attempt));
    });
  }

  /** Handlers that run now, by task. */
  runningNow(): ReadonlyMap<SimTask, number> {
    return this.running;
  }

  violate(message: string): void {
    const atMs = this.sim.time - this.sim.startedAt;
    this.sim.note(`VIOLATION ${message}`);
    this.firstViolation ??= { atMs, step: this.sim.steps };
    this.violations.push(`at +${atMs} ms (step ${this.sim.steps}): ${message}`);
  }

  private checkRate(task: SimTask, run: HandlerRun): void {
    const rate = (SIM_TASKS[task] as { rateLimit?: { max: number; perSeconds: number } }).rateLimit;
    if (!rate) return;
    const windowMs = rate.perSeconds * 1000;
    const recent = (this.recentStarts.get(task) ?? []).filter((at) => at > run.startedAt - windowMs);
    recent.push(run.startedAt);
    this.recentStarts.set(task, recent);
    if (recent.length > rate.max) {
      this.violate(
        `task '${task}' started ${recent.length} jobs within ${rate.perSeconds} s (rate limit ${rate.max}) as ${run.jobId} starts`,
      );
    }
  }
}
