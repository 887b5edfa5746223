import { CONFLICT_POLICIES } from '../lib/core/model/schedule';
import { compileTrigger, type TriggerSpec } from '../lib/core/triggers';
import {
  CAPPED_SCRIPTS,
  type CappedChange,
  CHANGE_AT_MS,
  cappedAddRequest,
  cappedChangeRequest,
  SECOND_CHANGE_AT_MS,
} from './capped';
import type { HandlerRun } from './observer';
import type { SimPlatform } from './platform';
import type { Rng } from './rng';
import type { Simulation } from './scheduler';
import { SIM_TASK_IDS, type SimPayload, type SimTask } from './tasks';

/** A schedule nobody changes: every fire of its trigger must complete once (or `maxRuns` of them). */
export interface SteadySchedule {
  id: string;
  task: SimTask;
  trigger: TriggerSpec;
  maxRuns: number | null;
  /** Its fire times, from its trigger (the first `maxRuns` when capped). */
  fires: number[];
}

/** An admin call the chaos made to a schedule: when it was called, when its answer came (if it did). */
interface ScheduleCall {
  kind: 'add' | 'update' | 'pause' | 'resume' | 'remove';
  calledAt: number;
  answeredAt: number | null;
  ok: boolean;
  /** The payload revision the call set (add and update). */
  rev?: number;
}

export interface WorkloadSize {
  steadySchedules: number;
  churnedSchedules: number;
  /** The simulated time in which schedules fire and the chaos acts (ms). */
  windowMs: number;
  /** Mean time between two admin calls of the chaos (ms). */
  chaosEveryMs: number;
}

const INTERVALS_SECONDS = [5, 7, 10, 15, 20, 30, 45, 60, 90, 120];
/** A pool of ids for add_job: small, so that ids collide. */
const JOB_IDS = 12;
/** The pool of ids for bursts of `add_jobs` (colliding with each other, not with `add_job`'s). */
const BURST_JOB_IDS = 24;
/**
 * How often a fire of a churned schedule that starts meets a change of its schedule while it runs: the
 * changes that a run's retry or takeover must tell from those made before its start.
 */
const CHANGED_WHILE_IT_RUNS = 0.5;
/** How often that change is a new payload alone (its next fires run it; the one running goes on as it is). */
const NEW_PAYLOAD_WHILE_IT_RUNS = 0.5;
/**
 * How often an added job that starts meets `cancel_job` while its handler runs (or just after: within
 * 1.2 times its planned time, at most `CANCEL_WITHIN_MS`): before the worker's first check or after it,
 * while its handler ends, fails, is retried or taken over.
 */
const CANCELLED_WHILE_IT_RUNS = 0.3;
const CANCEL_WITHIN_MS = 10_000;
/**
 * A schedule changed while a run of it lost its worker is left alone this long (longer than the queue
 * takes to bring the run's message back): the takeover then meets that one change alone, as it would
 * on a schedule changed now and then, and not one changed again since.
 */
const LEFT_ALONE_AFTER_A_VANISHED_RUN_MS = 12 * 60_000;
/**
 * The tasks of the rounds in which a run adds the capped schedules and changes them by their scripts,
 * each round in its own stretch of the window: the states a change meets (copies of a fire in flight,
 * in a line, woken) are where the races of chains hide, and one round a run reached them too seldom per
 * fire. A task with a slot limit has a line the capped fires (four a second) fill; one without has a
 * line only while it is paused (in half the rounds, `runCapped`).
 */
const CAPPED_ROUNDS: readonly SimTask[] = [
  'steady',
  'limited',
  'steady',
  'paced',
  'steady',
  'limited',
  'steady',
  'paced',
];
/** The capped script that pauses its schedule and resumes it with a replay (`CAPPED_SCRIPTS`). */
const REPLAY_SCRIPT = CAPPED_SCRIPTS.findIndex((script) => script.some((step) => step.kind === 'replay'));
/** How far ahead of their first fire the capped schedules are added: the tick sends their fires ahead. */
const CAPPED_LEAD_MS = 20_000;
/** What each step of a capped schedule's script is, as the start check knows changes. */
const CAPPED_CALL_KINDS: Readonly<Record<CappedChange, ScheduleCall['kind']>> = {
  pause: 'pause',
  resume: 'resume',
  replay: 'resume',
  trigger: 'update',
  replace: 'add',
};

/**
 * What a run does: steady schedules over every task (checked at the end: every fire once), churned
 * schedules the chaos adds, updates, pauses, resumes and removes at random moments, and jobs added with
 * colliding ids, cancelled and retried, tasks paused and resumed. Every call goes through the admin
 * API, as the admin Lambda answers it; a call whose answer did not come is tried again, as a user would.
 */
export class Workload {
  readonly steady: SteadySchedule[] = [];
  /** The schedules of `sim/capped.ts`, a set a round: each must run exactly its `max_runs` fires. */
  readonly capped = CAPPED_ROUNDS.flatMap((_, round) =>
    CAPPED_SCRIPTS.map((_, n) => (round === 0 ? `capped-${n}` : `capped-${n}.${round}`)),
  );
  private readonly calls = new Map<string, ScheduleCall[]>();
  private readonly revs = new Map<string, number>();
  /** The task each churned schedule was last added with (an update keeps it; none yet: the slowest terms). */
  private readonly churnedTasks = new Map<string, SimTask>();
  private readonly churned: string[] = [];
  /** Churned schedules the chaos leaves alone until then (see `LEFT_ALONE_AFTER_A_VANISHED_RUN_MS`). */
  private readonly leftAlone = new Map<string, number>();
  /** Pause and resume calls not answered yet. */
  private togglesInFlight = 0;
  /** The runs of capped schedules that started and may still run (their worker may vanish at a change). */
  private cappedRuns: HandlerRun[] = [];
  /** Changes of churned schedules not answered yet (an add may land after the end's removal otherwise). */
  private changesInFlight = 0;
  private readonly pausedTasks = new Set<SimTask>();
  private readonly addedJobs = new Set<string>();
  adminCalls = 0;
  adminFailures = 0;

  constructor(
    private readonly sim: Simulation,
    private readonly rng: Rng,
    private readonly platform: SimPlatform,
    private readonly size: WorkloadSize,
    private readonly onRetryAsked: (jobId: string) => void,
    /** How likely the worker of a run vanishes once a change aimed at it answered (`PlatformFaults`). */
    private readonly vanishesAfterChange: () => number = () => 0,
    /** `cancel_job` answered that it asked the job to stop while `attempt` ran. */
    private readonly onCancelAsked: (jobId: string, attempt: number) => void = () => {},
  ) {}

  get startsAt(): number {
    return this.sim.startedAt;
  }

  get endsAt(): number {
    return this.sim.startedAt + this.size.windowMs;
  }

  /** Adds the steady schedules (before their first fire) and starts the chaos. */
  start(): void {
    for (let index = 0; index < this.size.steadySchedules; index++) this.addSteady(index);
    for (let index = 0; index < this.size.churnedSchedules; index++) this.churned.push(`churn-${index}`);
    this.sim.at(this.startsAt + this.rng.between(0, this.size.chaosEveryMs), () => this.chaos());
    const stretch = this.size.windowMs / CAPPED_ROUNDS.length;
    CAPPED_ROUNDS.forEach((round, n) => {
      const ids = this.capped.slice(n * CAPPED_SCRIPTS.length, (n + 1) * CAPPED_SCRIPTS.length);
      const at = this.startsAt + n * stretch + this.rng.int(stretch / 2);
      this.sim.at(at, () => void this.runCapped(ids, round));
    });
  }

  /** Adds a round's capped schedules, then changes each by its script while the fires it sent ahead wait. */
  private async runCapped(ids: readonly string[], task: SimTask): Promise<void> {
    const firstFire = this.sim.time + CAPPED_LEAD_MS;
    const payload: SimPayload = { run: 'ok', ms: this.handlerMs(task), rev: 0 };
    const add = (id: string) => cappedAddRequest(id, task, payload, firstFire, 'exception');
    await Promise.all(ids.map((id) => this.callUntilAnswered(add(id))));
    // Each script's changes come anywhere within a second of a fire time, or (half of them) just before
    // one: a change that takes a few ms then meets a fire due after it began, which may start before the
    // change is written.
    const shifts = CAPPED_SCRIPTS.map(() =>
      this.rng.chance(0.5) ? -this.rng.between(0, 50) : this.rng.between(-500, 500),
    );
    // Half the rounds pause the schedules' task around their first change, resumed around the second
    // (up to a backlogged queue's travel after it): each change's copies of a fire then meet the first
    // chain's in the task's line, an older copy woken and on its way while a newer one joins. Half of
    // those resume the task just before the replay (`REPLAY_SCRIPT`): the copies the task's resume wakes
    // are on their way when the replay's own copies come, whose workers may still read the task as
    // paused and join its line.
    if (this.rng.chance(0.5)) {
      const pauseAt = firstFire + CHANGE_AT_MS + this.rng.between(-2_000, 2_000);
      const replayAt = firstFire + SECOND_CHANGE_AT_MS + (shifts[REPLAY_SCRIPT] ?? 0);
      // Just before the replay: at that time, however long the pause took to answer.
      const nearReplay = this.rng.chance(0.5);
      const resumeAt = nearReplay
        ? replayAt - this.rng.between(0, 300)
        : firstFire + SECOND_CHANGE_AT_MS + this.rng.between(-2_000, 18_000);
      this.sim.at(
        pauseAt,
        () => void this.pauseTask(task, resumeAt - pauseAt, nearReplay ? resumeAt : undefined),
      );
    }
    await Promise.all(
      CAPPED_SCRIPTS.map(async (script, n) => {
        const id = ids[n] as string;
        for (const step of script) {
          const at = firstFire + step.atMs + (shifts[n] ?? 0);
          await this.sim.sleep(Math.max(0, at - this.sim.time));
          const call: ScheduleCall = {
            kind: CAPPED_CALL_KINDS[step.kind],
            calledAt: this.sim.time,
            answeredAt: null,
            ok: false,
          };
          this.callsOf(id).push(call);
          await this.callUntilAnswered(cappedChangeRequest(step.kind, id, task, payload, firstFire));
          call.answeredAt = this.sim.time;
          call.ok = true;
          this.vanishRunsOf(id);
        }
      }),
    );
  }

  /**
   * The first start of a fire of a churned schedule, at whatever attempt, must respect the changes that
   * answered before the check of the claim that fixed its definition began (`definedAt`: its first
   * claim, or a reclaim under a newer copy; a later attempt retries it only if that check passed).
   */
  checkStart = (run: HandlerRun, definedAt: number): string | undefined => {
    const at = run.jobId.indexOf('@');
    if (at < 0) return undefined;
    const calls = this.calls.get(run.jobId.slice(0, at));
    return calls && startProblem(run, calls, definedAt);
  };

  /**
   * Ends the chaos: resumes every task it paused (their jobs must finish too) and removes the churned
   * schedules (their fires sent by then must still end).
   */
  async settle(): Promise<void> {
    // A pause still in flight (retried after a lost answer) may apply after a resume that raced it: once
    // none is, every task is resumed, whatever the bookkeeping says. Likewise a schedule change in
    // flight may apply after the removal below: an add that did left its schedule firing for ever.
    while (this.togglesInFlight > 0 || this.changesInFlight > 0)
      await new Promise<void>((done) => this.sim.at(this.sim.time + 1_000, done));
    for (const task of SIM_TASK_IDS) await this.callUntilAnswered({ action: 'resume_task', task });
    this.pausedTasks.clear();
    for (const id of this.churned) {
      const call: ScheduleCall = { kind: 'remove', calledAt: this.sim.time, answeredAt: null, ok: false };
      this.callsOf(id).push(call);
      await this.callUntilAnswered({ action: 'remove_schedule', id });
      call.answeredAt = this.sim.time;
      call.ok = true;
    }
  }

  private callsOf(id: string): ScheduleCall[] {
    const calls = this.calls.get(id) ?? [];
    this.calls.set(id, calls);
    return calls;
  }

  private addSteady(index: number): void {
    const task = this.rng.pick(SIM_TASK_IDS);
    const startAt = this.startsAt + 30_000 + this.rng.int(60_000);
    const endAt = this.endsAt - this.rng.int(this.size.windowMs / 4);
    const interval = this.steadyInterval(task);
    const trigger: TriggerSpec = this.rng.chance(0.3)
      ? {
          type: 'cron',
          expression: this.rng.pick(['* * * * *', '*/2 * * * *']),
          start_at: iso(startAt),
          end_at: iso(endAt),
        }
      : { type: 'interval', seconds: interval, start_at: iso(startAt), end_at: iso(endAt) };
    const maxRuns = this.rng.chance(0.2) ? 1 + this.rng.int(8) : null;
    const id = `steady-${index}`;
    const all = fireTimes(trigger, startAt, endAt);
    // A short run's window may hold no fire of an every-2-minutes cron: the admin API refuses it
    if (all.length === 0) return;
    this.steady.push({ id, task, trigger, maxRuns, fires: maxRuns === null ? all : all.slice(0, maxRuns) });
    const payload: SimPayload = { run: 'ok', ms: this.handlerMs(task), rev: 0 };
    void this.callUntilAnswered({
      action: 'add_schedule',
      id,
      task,
      trigger,
      payload,
      coalesce: 'all',
      max_jitter_seconds: this.rng.chance(0.3) ? this.rng.int(5) : 0,
      ...(maxRuns !== null && { max_runs: maxRuns }),
    });
  }

  /** Slow enough for its task's limits to keep up: a steady schedule's fires all run within the run. */
  private steadyInterval(task: SimTask): number {
    const intervals =
      task === 'single' || task === 'rated' ? INTERVALS_SECONDS.filter((s) => s >= 30) : INTERVALS_SECONDS;
    return this.rng.pick(intervals);
  }

  private handlerMs(task: SimTask): number {
    return task === 'single' ? this.rng.between(50, 1_500) : this.rng.between(20, 3_000);
  }

  private chaos(): void {
    if (this.sim.time >= this.endsAt) return;
    this.sim.at(this.sim.time + this.rng.between(0, 2 * this.size.chaosEveryMs), () => this.chaos());
    const draw = this.rng.next();
    if (draw < 0.45) void this.changeSchedule();
    else if (draw < 0.65) void this.addJob();
    else if (draw < 0.75) void this.addBurst();
    else if (draw < 0.85) void this.cancelOrRetry();
    else void this.toggleTask();
  }

  /**
   * The workers of a capped schedule's runs vanish once a change of it answered (as churned schedules'
   * do): their takeovers come after the change, and the change's copies of the same fires meet them.
   */
  private vanishRunsOf(id: string): void {
    this.cappedRuns = this.cappedRuns.filter((run) => !run.over);
    for (const run of this.cappedRuns) {
      if (!run.jobId.startsWith(`${id}@`) || !run.invocation) continue;
      if (this.rng.chance(this.vanishesAfterChange())) {
        this.sim.kill(run.invocation, 'its worker vanished after a change to its capped schedule');
      }
    }
  }

  /**
   * A handler started: a fire of a churned schedule may meet a change of its schedule while it runs; a
   * capped schedule's is kept for `vanishRunsOf`.
   */
  runStarted(run: HandlerRun): void {
    if (
      this.addedJobs.has(run.jobId) &&
      this.sim.time < this.endsAt &&
      this.rng.chance(CANCELLED_WHILE_IT_RUNS)
    ) {
      const within = Math.min(CANCEL_WITHIN_MS, run.plannedMs * 1.2);
      this.sim.at(this.sim.time + this.rng.int(within + 1), () => void this.cancel(run.jobId));
    }
    const scheduleId = run.jobId.split('@')[0] ?? '';
    if (this.capped.includes(scheduleId)) this.cappedRuns.push(run);
    if (this.sim.time >= this.endsAt || !this.churned.includes(scheduleId)) return;
    if (this.rng.chance(CHANGED_WHILE_IT_RUNS))
      this.sim.at(this.sim.time, () => void this.changeSchedule(run));
  }

  /** A random change of a churned schedule (`during`: of the schedule of this run, while it runs). */
  private async changeSchedule(during?: HandlerRun): Promise<void> {
    const id = during ? (during.jobId.split('@')[0] ?? '') : this.rng.pick(this.changeable());
    const payloadOnly = during !== undefined && this.rng.chance(NEW_PAYLOAD_WHILE_IT_RUNS);
    const kind = payloadOnly
      ? 'update'
      : this.rng.pick(['add', 'add', 'update', 'update', 'pause', 'resume', 'remove'] as const);
    const rev = (this.revs.get(id) ?? 0) + (kind === 'add' || kind === 'update' ? 1 : 0);
    this.revs.set(id, rev);
    const payload: SimPayload = { run: this.handlerRun(), ms: this.rng.between(10, 2_000), rev };
    const task = kind === 'add' ? this.rng.pick(SIM_TASK_IDS) : (this.churnedTasks.get(id) ?? 'rated');
    if (kind === 'add') this.churnedTasks.set(id, task);
    const trigger = this.churnTrigger(task);
    const request: Record<string, unknown> =
      kind === 'add'
        ? {
            action: 'add_schedule',
            id,
            task,
            trigger,
            payload,
            conflict_policy: this.rng.pick(CONFLICT_POLICIES),
            coalesce: this.rng.pick(['all', 'latest', 'earliest']),
            ...(this.rng.chance(0.3) && { max_runs: 1 + this.rng.int(5) }),
            ...(this.rng.chance(0.2) && { paused: true }),
            ...(this.rng.chance(0.2) && { keep_finished: true }),
          }
        : kind === 'update'
          ? {
              action: 'update_schedule',
              id,
              payload,
              ...(!payloadOnly && this.rng.chance(0.4) && { trigger }),
              ...(!payloadOnly && this.rng.chance(0.2) && { max_runs: 1 + this.rng.int(10) }),
              ...(!payloadOnly && this.rng.chance(0.2) && { keep_finished: this.rng.chance(0.5) }),
            }
          : {
              action: `${kind}_schedule`,
              id,
              ...(kind === 'resume' && { replay_missed: this.rng.chance(0.3) }),
            };
    const call: ScheduleCall = { kind, calledAt: this.sim.time, answeredAt: null, ok: false };
    if (kind === 'add' || kind === 'update') call.rev = rev;
    this.callsOf(id).push(call);
    this.changesInFlight += 1;
    const answer = await this.call(request).finally(() => {
      this.changesInFlight -= 1;
    });
    if (!answer) return;
    call.answeredAt = this.sim.time;
    // do_nothing and a refused add leave the schedule as it was: their revision is not the schedule's.
    call.ok =
      answer.ok && !(kind === 'add' && (answer.result as { status?: string } | undefined)?.status === 'kept');
    // An `unavailable` answer leaves the outcome unknown: the write may have applied before a later
    // store call of the change failed, so its revision may be the schedule's.
    if (!call.ok && !(!answer.ok && answer.error.code === 'unavailable')) delete call.rev;
    // The run's worker vanishes now: the run is taken over (or reaped) after the change, as its lease ends.
    if (during?.invocation && !during.over && this.rng.chance(this.vanishesAfterChange())) {
      this.sim.kill(during.invocation, 'its worker vanished after a change to its schedule');
      this.leftAlone.set(id, this.sim.time + LEFT_ALONE_AFTER_A_VANISHED_RUN_MS);
    }
  }

  /** The churned schedules the chaos may change now (all of them, should every one be left alone). */
  private changeable(): string[] {
    const now = this.sim.time;
    const open = this.churned.filter((id) => (this.leftAlone.get(id) ?? 0) <= now);
    return open.length > 0 ? open : this.churned;
  }

  /** A churned schedule's new trigger: its intervals, like a steady one's, slow enough for its task's limits. */
  private churnTrigger(task: SimTask): TriggerSpec {
    const now = this.sim.time;
    const draw = this.rng.next();
    if (draw < 0.5) return { type: 'interval', seconds: this.steadyInterval(task) };
    if (draw < 0.75) return { type: 'cron', expression: '* * * * *' };
    return { type: 'date', run_at: iso(now + this.rng.int(180_000)) };
  }

  private handlerRun(): SimPayload['run'] {
    const draw = this.rng.next();
    if (draw < 0.8) return 'ok';
    if (draw < 0.9) return 'throw';
    if (draw < 0.94) return 'fatal';
    if (draw < 0.97) return 'unstorable';
    return 'overrun';
  }

  private async addJob(): Promise<void> {
    const jobId = `job-${this.rng.int(JOB_IDS)}`;
    this.addedJobs.add(jobId);
    // Three in ten may run past the worker's first check for a cancellation: `cancel_job` stops it running.
    const longest = this.rng.chance(0.3) ? 15_000 : 3_000;
    const payload: SimPayload = { run: this.handlerRun(), ms: this.rng.between(10, longest), rev: 0 };
    await this.call({
      action: 'add_job',
      task: this.rng.pick(SIM_TASK_IDS),
      job_id: jobId,
      payload,
      run_at: iso(this.sim.time + this.rng.int(120_000)),
      conflict_policy: this.rng.pick(CONFLICT_POLICIES),
      ...(this.rng.chance(0.2) && { priority: 'critical' }),
    });
  }

  /**
   * A few jobs of a limited task at once (`add_jobs`), some failing: its line fills and empties again,
   * so slots come free beside jobs woken for them, and retries join a line that woken entries of their
   * own earlier attempts may still hold. A burst of a task limited by its rate alone books a wake-up for
   * each of its starts, one after another.
   */
  private async addBurst(): Promise<void> {
    const task = this.rng.pick(['limited', 'single', 'paced', 'rated'] as const);
    const runAt = iso(this.sim.time + this.rng.int(10_000));
    const jobs = Array.from({ length: 3 + this.rng.int(4) }, () => {
      const jobId = `burst-${this.rng.int(BURST_JOB_IDS)}`;
      this.addedJobs.add(jobId);
      const run: SimPayload['run'] = this.rng.chance(0.3) ? 'throw' : 'ok';
      const payload: SimPayload = { run, ms: this.rng.between(100, 1_500), rev: 0 };
      return {
        task,
        job_id: jobId,
        payload,
        run_at: runAt,
        conflict_policy: this.rng.pick(CONFLICT_POLICIES),
      };
    });
    await this.call({ action: 'add_jobs', jobs });
  }

  private async cancelOrRetry(): Promise<void> {
    const jobs = [...this.addedJobs];
    if (jobs.length === 0) return;
    const jobId = this.rng.pick(jobs);
    if (this.rng.chance(0.5)) {
      await this.cancel(jobId);
    } else {
      this.onRetryAsked(jobId);
      await this.call({ action: 'retry_job', job_id: jobId });
    }
  }

  /** `cancel_job`: a job that has not started never does; a running one is asked to stop. */
  private async cancel(jobId: string): Promise<void> {
    const answer = await this.call({ action: 'cancel_job', job_id: jobId });
    const job = answer?.ok
      ? (answer.result as { job?: { status?: string; attempt?: number } }).job
      : undefined;
    if (job?.status === 'running' && job.attempt !== undefined) this.onCancelAsked(jobId, job.attempt);
  }

  private async toggleTask(): Promise<void> {
    const task = this.rng.pick(SIM_TASK_IDS);
    if (this.pausedTasks.has(task)) return this.resumeIfPaused(task);
    // A task stays paused at most a few minutes: its steady fires must still run within the run.
    return this.pauseTask(task, this.rng.between(1_000, 120_000));
  }

  /**
   * Pauses the task (unless the chaos paused it already), resumed `forMs` after the pause answered, or at
   * `resumeAt` when given (however long the pause took to answer).
   */
  private async pauseTask(task: SimTask, forMs: number, resumeAt?: number): Promise<void> {
    if (this.pausedTasks.has(task)) return;
    this.pausedTasks.add(task);
    this.togglesInFlight += 1;
    try {
      await this.callUntilAnswered({ action: 'pause_task', task });
    } finally {
      this.togglesInFlight -= 1;
    }
    const at = Math.max(this.sim.time, resumeAt ?? this.sim.time + forMs);
    this.sim.at(at, () => void this.resumeIfPaused(task));
  }

  private async resumeIfPaused(task: SimTask): Promise<void> {
    if (!this.pausedTasks.has(task)) return;
    this.togglesInFlight += 1;
    try {
      await this.callUntilAnswered({ action: 'resume_task', task });
    } finally {
      this.togglesInFlight -= 1;
    }
    this.pausedTasks.delete(task);
  }

  /** One call; undefined when its process died (no answer). */
  private async call(request: Record<string, unknown>) {
    this.adminCalls += 1;
    const answer = await this.platform.callAdmin(request);
    if (!answer?.ok) this.adminFailures += 1;
    return answer;
  }

  /** Calls until an answer says it was done (a conflict after a lost answer means it was). */
  private async callUntilAnswered(request: Record<string, unknown>): Promise<void> {
    for (let tries = 0; ; tries++) {
      const answer = await this.call(request);
      if (answer?.ok) return;
      if (answer && !answer.ok && tries > 0 && answer.error.code === 'conflicting_id') return;
      if (
        answer &&
        !answer.ok &&
        request.action === 'remove_schedule' &&
        answer.error.code === 'schedule_not_found'
      )
        return;
      if (answer && !answer.ok && answer.error.code !== 'unavailable') {
        throw new Error(
          `${String(request.action)} was refused: ${answer.error.code} ${answer.error.message}`,
        );
      }
      await this.sim.sleep(1_000);
    }
  }
}

function fireTimes(trigger: TriggerSpec, from: number, to: number): number[] {
  const source = compileTrigger(trigger);
  const times: number[] = [];
  for (let next = source.next(from); next !== undefined && next <= to; next = source.next(next + 1)) {
    times.push(next);
  }
  return times;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * What a start claimed at `claimedAt` ignored of the changes `calls` made: a pause or removal that
 * answered before it (unless a resume or add may have applied after it), or an update that answered
 * before it to a payload newer than the one run (unless a change setting that payload may have applied
 * after it: two calls in flight at once apply in either order).
 */
function startProblem(
  run: HandlerRun,
  calls: readonly ScheduleCall[],
  claimedAt: number,
): string | undefined {
  const answered = calls.filter((call) => call.ok && call.answeredAt !== null && call.answeredAt < claimedAt);
  // A call may have applied after another if it was not answered before the other was called.
  const mayFollow = (call: ScheduleCall, other: ScheduleCall) =>
    call !== other && call.calledAt <= claimedAt && (call.answeredAt ?? Infinity) > other.calledAt;
  const stop = answered.findLast((call) => call.kind === 'pause' || call.kind === 'remove');
  if (stop) {
    const restarted = calls.some(
      (call) => (call.kind === 'resume' || call.kind === 'add') && mayFollow(call, stop),
    );
    if (!restarted) {
      return `${run.jobId} was claimed ${claimedAt - (stop.answeredAt as number)} ms after ${stop.kind}_schedule answered`;
    }
  }
  const update = answered.findLast((call) => call.rev !== undefined);
  // Another change that set the revision run, racing this one (their writes' order is not known).
  const racing = calls.some((call) => call.rev === run.rev && update && mayFollow(call, update));
  if (update?.rev !== undefined && run.rev < update.rev && !racing) {
    return `${run.jobId} ran payload revision ${run.rev}, claimed ${claimedAt - (update.answeredAt as number)} ms after revision ${update.rev} answered`;
  }
  return undefined;
}
