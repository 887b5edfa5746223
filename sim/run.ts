import type { MemoryStore } from '../lib/adapters/memory/memory-store';
import type { Job } from '../lib/core/model/job';
import { startIntervalMs } from '../lib/core/model/rate-limit';
import { CLOSING_WAIT_MAX_MS } from '../lib/core/planning/closing-notes';
import { cappedViolations } from './capped';
import { finishedNotRemoved } from './closing';
import { type LineTerms, LineWatch } from './line-watch';
import { Observer } from './observer';
import { type PlatformFaults, QUIET, SimPlatform } from './platform';
import type { Latency } from './ports';
import { Rng } from './rng';
import { Simulation } from './scheduler';
import { SIM_MAX_ATTEMPTS, SIM_TASK_IDS, SIM_TASKS, simRegistry } from './tasks';
import { Workload, type WorkloadSize } from './workload';

export interface RunOptions {
  seed: number;
  size: WorkloadSize;
  faults: PlatformFaults;
  storeLatency: Latency;
  workers: number;
  /** Keeps every step whose line holds this text (a job or schedule id) in `followed`. */
  follow?: string;
  /** Changes the store before the run: a test breaks it to see a check fail. */
  adjustStore?: (store: MemoryStore) => void;
}

export interface RunResult {
  seed: number;
  violations: string[];
  /** When the first violation happened (ms of simulated time since the run began, and its step). */
  firstViolation?: { atMs: number; step: number };
  /** The steps that led to the first violation (empty when there was none). */
  trace: string[];
  /** The steps `follow` asked for. */
  followed: string[];
  /** Jobs the run made (schedule fires and added jobs), and how many of them were fires (by the first violation, if any). */
  jobs: number;
  fires: number;
  handlerStarts: number;
  steps: number;
  simulatedMs: number;
  crashes: number;
  adminCalls: number;
  /** The longest a slot stood free while a job it could start waited (see `LineWatch`). */
  longestFreeSlotMs: number;
}

/** The first simulated instant (seeds move it by up to a day, so fire times fall anywhere in buckets). */
const EPOCH = Date.parse('2026-03-02T00:00:00Z');
/** After the chaos: quiet time for retries, leases and visibility timeouts to run out, before and after a redrive. */
const QUIET_MS = 12 * 60_000;
/**
 * Then, while messages are left and jobs still start, more time in steps of this, up to the most: the
 * workload may give a limited task more steady fires than it runs in a storm (seed 5,000,871: eight
 * schedules fired 1.25 times a second at `paced`, whose rate is one a second).
 */
const BACKLOG_STEP_MS = 5 * 60_000;
const MAX_BACKLOG_MS = 60 * 60_000;

/**
 * One simulation: the platform and the workload of `seed`, with faults for the workload's window, then
 * quiet (no faults, no chaos) until everything has ended, then the checks of the end. Stops at the first
 * violation, with the trace that led to it.
 */
export async function simulate(options: RunOptions): Promise<RunResult> {
  const seedRng = new Rng(options.seed);
  const sim = new Simulation(seedRng.int(4_294_967_296), EPOCH + seedRng.int(86_400_000));
  sim.follow = options.follow;
  let faults = options.faults;
  const platformHolder: { platform?: SimPlatform } = {};
  const readJob = (jobId: string) =>
    platformHolder.platform?.store.getJob(jobId, sim.time) ?? Promise.resolve(undefined);
  let workload: Workload | undefined;
  const observer = new Observer(
    sim,
    readJob,
    (run, definedAt) => workload?.checkStart(run, definedAt),
    (run) => workload?.runStarted(run),
  );
  const registry = simRegistry(sim, observer);
  const platform = new SimPlatform({
    sim,
    rng: sim.rng.fork(),
    registry,
    faults: () => faults,
    storeLatency: options.storeLatency,
    workers: options.workers,
  });
  platformHolder.platform = platform;
  watchClaims(sim, platform.store, observer);
  options.adjustStore?.(platform.store);
  workload = new Workload(
    sim,
    sim.rng.fork(),
    platform,
    options.size,
    (jobId) => observer.retryAsked(jobId),
    () => faults.vanishesAfterChange,
    (jobId, attempt) => observer.cancelAskedWhileRunning(jobId, attempt),
  );
  const failed = () => observer.violations.length > 0;

  const lineWatch = new LineWatch(sim, platform.store, platform.queue, lineTerms(), (problem) =>
    observer.violate(problem),
  );
  platform.start();
  lineWatch.start();
  workload.start();
  await sim.run(() => failed() || sim.time >= (workload as Workload).endsAt);
  if (!failed()) {
    faults = QUIET;
    let settled = false;
    void workload.settle().then(() => {
      settled = true;
    });
    const quietUntil = sim.time + QUIET_MS;
    await sim.run(() => failed() || (settled && sim.time >= quietUntil));
    platform.queue.redrive();
    const redrivenUntil = sim.time + QUIET_MS;
    await sim.run(() => failed() || sim.time >= redrivenUntil);
    // A backlog that a storm left on a limited task drains at the task's pace: it has time while it
    // starts jobs (a line that stalls still fails the end's checks).
    for (let waited = 0; waited < MAX_BACKLOG_MS && !failed() && platform.queue.size > 0; ) {
      const started = observer.handlerStarts;
      const until = sim.time + BACKLOG_STEP_MS;
      await sim.run(() => failed() || sim.time >= until);
      waited += BACKLOG_STEP_MS;
      if (observer.handlerStarts === started) break;
    }
    // Closing notes remove the finished schedules whose last jobs ended late: each is read again at most
    // this long after the last (ADR 0011).
    const removalsBy = sim.time + CLOSING_WAIT_MAX_MS + 3 * 60_000;
    while (!failed() && sim.time < removalsBy && (await finishedNotRemoved(platform.store)).length > 0) {
      const until = sim.time + 60_000;
      await sim.run(() => failed() || sim.time >= until);
    }
    platform.stop();
    lineWatch.stop();
    const stoppedAt = sim.time;
    await sim.run(() => failed() || sim.time >= stoppedAt + 5 * 60_000);
  }
  const jobs = await allJobs(platform, sim.time);
  if (!failed()) await checkEnd(platform, workload, observer, jobs, sim.time);
  return {
    seed: options.seed,
    violations: observer.violations,
    ...(observer.firstViolation && { firstViolation: observer.firstViolation }),
    trace: failed() ? sim.trace() : [],
    followed: sim.followed,
    jobs: jobs.length,
    fires: jobs.filter((job) => job.scheduleId !== null).length,
    handlerStarts: observer.handlerStarts,
    steps: sim.steps,
    simulatedMs: sim.time - sim.startedAt,
    crashes: sim.crashes,
    adminCalls: workload.adminCalls,
    longestFreeSlotMs: lineWatch.longestFreeMs,
  };
}

/** Every task with a line (a slot limit, a rate limit or both), and what its line is held to. */
function lineTerms(): Map<string, LineTerms> {
  const lines = new Map<string, LineTerms>();
  for (const [task, terms] of Object.entries(SIM_TASKS)) {
    const limit = 'maxRunningJobs' in terms ? terms.maxRunningJobs : Number.POSITIVE_INFINITY;
    const rate = 'rateLimit' in terms ? terms.rateLimit : undefined;
    if (limit === Number.POSITIVE_INFINITY && !rate) continue;
    lines.set(task, { limit, startIntervalMs: rate ? startIntervalMs(rate) : 0 });
  }
  return lines;
}

/**
 * Tells the observer every job a claim took and who took it, and every run the reaper handed to a next
 * attempt, as the store answered (whether or not its caller heard).
 */
function watchClaims(sim: Simulation, store: MemoryStore, observer: Observer): void {
  const claimJob = store.claimJob.bind(store);
  store.claimJob = async (input) => {
    const claimant = sim.executing;
    const outcome = await claimJob(input);
    if (outcome.status === 'claimed') observer.claimed(outcome.job, input.check !== undefined, claimant);
    return outcome;
  };
}

async function allJobs(platform: SimPlatform, now: number): Promise<Job[]> {
  const jobs: Job[] = [];
  for (const task of SIM_TASK_IDS) {
    let cursor: string | undefined;
    do {
      const page = await platform.store.listJobs({ task }, { limit: 100, cursor }, now);
      jobs.push(...page.items);
      cursor = page.cursor;
    } while (cursor);
  }
  return jobs;
}

/**
 * Once everything has ended: every steady fire completed (a capped schedule's first `max_runs`, and no
 * other), every finished schedule whose last job ended removed, every job ended, no slot held, no line entry left, nothing left in the queue or its
 * dead-letter queue, and no handler still running.
 */
async function checkEnd(
  platform: SimPlatform,
  workload: Workload,
  observer: Observer,
  jobs: readonly Job[],
  now: number,
): Promise<void> {
  const byId = new Map(jobs.map((job) => [job.id, job]));
  for (const schedule of workload.steady) {
    for (const fire of schedule.fires) {
      const id = `${schedule.id}@${fire}`;
      const job = byId.get(id);
      if (!job || !ranToItsEnd(platform, job)) {
        observer.violate(`${id} (${schedule.task}) did not complete: ${job ? describe(job) : 'no job'}`);
      }
    }
    const expected = new Set(schedule.fires.map((fire) => `${schedule.id}@${fire}`));
    for (const job of jobs) {
      if (job.scheduleId === schedule.id && job.status === 'success' && !expected.has(job.id)) {
        observer.violate(
          `${job.id} completed, but is not a fire of ${schedule.id}'s first ${schedule.fires.length}`,
        );
      }
    }
  }
  for (const id of workload.capped) {
    const ran = jobs.filter((job) => job.scheduleId === id && ranToItsEnd(platform, job));
    const schedule = await platform.store.getSchedule(id);
    for (const problem of cappedViolations(id, schedule, ran, (jobId) => observer.starts.has(jobId))) {
      observer.violate(problem);
    }
  }
  for (const schedule of await finishedNotRemoved(platform.store)) {
    observer.violate(`finished schedule ${schedule} was never removed`);
  }
  for (const job of jobs) {
    if (job.status === 'queued' || job.status === 'running' || job.status === 'retrying') {
      observer.violate(`${job.id} never ended: ${describe(job)}`);
    }
  }
  for (const [task, running] of await platform.store.runningCounts()) {
    if (running !== 0)
      observer.violate(`the counter of '${task}' holds ${running} slot(s) with nothing running`);
  }
  for (const task of SIM_TASK_IDS) {
    const waiting = await platform.store.waitingCount(task);
    if (waiting === 0) continue;
    const head = await platform.store.lineHead(task);
    const woken = await platform.store.overdueWoken(task, Number.MAX_SAFE_INTEGER);
    const named = [
      ...(head ? [head.message.job.id] : []),
      ...woken.map((entry) => `${entry.message.job.id} (woken)`),
    ];
    observer.violate(`${waiting} entr(ies) left in the line of '${task}': ${named.join(', ')}`);
  }
  if (platform.queue.size > 0) {
    observer.violate(
      `${platform.queue.size} message(s) left in the queue: ${platform.queue.jobIds().slice(0, 5).join(', ')}`,
    );
  }
  if (platform.queue.deadLetters.length > 0) {
    observer.violate(`${platform.queue.deadLetters.length} message(s) left in the dead-letter queue`);
  }
  for (const [task, running] of observer.runningNow()) {
    if (running !== 0) observer.violate(`${running} handler(s) of '${task}' still running at the end`);
  }
  void now;
}

/**
 * The job succeeded, or every attempt's delivery was cut short (crashes, refused calls) until none was
 * left: abandoned, visibly.
 */
function ranToItsEnd(platform: SimPlatform, job: Job): boolean {
  if (job.status === 'success') return true;
  return job.status === 'abandoned' && (platform.cutShort.get(job.id) ?? 0) >= SIM_MAX_ATTEMPTS;
}

function describe(job: Job): string {
  const result = job.result?.error
    ? `${job.result.error.type}: ${job.result.error.message}`
    : (job.result?.outcome ?? 'no result');
  return `${job.status}, attempt ${job.attempt}, ${result}`;
}
