import type { SQSEvent } from 'aws-lambda';
/**
 * `npm run soak`: second-level schedules run for a few minutes on DynamoDB Local and fauxqs while
 * faults are injected — tick crashes between send and release, worker crashes mid-job, duplicated and
 * redelivered messages, random DynamoDB throttling and bursts of it longer than the store's retries, writes
 * applied whose answer is lost (the store retries them), two
 * ticks at once, counter repair every 2 s, payloads up to the 128 KB limit, handlers that throw, return
 * unstorable values or ignore their signal past their timeout, schedules paused, resumed, updated and
 * removed mid-run, dead letters redriven after their results expired, and a task limited to 2 running
 * jobs fed faster than it drains whose workers die between handing a slot to the next job and sending
 * its message. Then it checks that every fire and job completed once (a run cut off by a crash is
 * retried, and counted apart), nothing of a paused or removed schedule started after the call
 * returned, no old payload ran after an update returned, no task exceeded its limit, no job waited in
 * a line with a slot free and nobody woken for it longer than a message's travel (or, after a crash,
 * than the tick's repair), every woken job was claimed by the time its lost message was due again,
 * counters are back to 0 and no message is left; and that jobs asked to stop while they ran (`cancel_job`)
 * ended, stopped or not, and never ran again (`soak/stops.ts`). Exits 1 on any violation. `--ci`: a one-minute
 * variant with fewer schedules, the same faults and checks. `--tick-seconds 60`: the ticks run as in
 * AWS, once a minute.
 */
import { quietSdkNodeVersionWarning } from '../lib/adapters/sdk-node-version';
import { SqsJobQueue } from '../lib/adapters/sqs/sqs-job-queue';
import { defaultCriticalConcurrency } from '../lib/core/limits';
import { PARKED_JOB_LEASE_MS } from '../lib/core/ports/job-queue';
import { LOCAL_CRITICAL_POLLERS_CEILING } from '../lib/local/platform';
import { parseScriptFlags } from '../lib/local/script-flags';
import type { RuntimeDeps } from '../lib/runtime/dependencies';
import { addNoteTotals, emptyNoteTotals, type NoteTotals } from '../lib/runtime/dispatch/note-run';
import type { WorkerInvocationContext } from '../lib/runtime/handlers/worker';
import type { TickSummary } from '../lib/runtime/tick/run-tick';
import { BACKLOG_FEED, backlogSchedules, isAddedBacklogJob, runBacklogFeed } from './soak/backlog';
import { checkBacklog } from './soak/backlog-check';
import { cappedFinished, cappedFireIds, checkCapped, runCapped } from './soak/capped';
import { checkSoak } from './soak/checks';
import { cancelledByStop, checkChurn, runChurn } from './soak/churn';
import {
  crashingDispatches,
  duplicatingQueue,
  Faults,
  injectLostAnswers,
  injectThrottling,
} from './soak/faults';
import { SOAK_TIMEOUT_SECONDS, soakHandler } from './soak/handlers';
import { JobTrace } from './soak/job-trace';
import { wokenEntriesProbe } from './soak/line-probe';
import { adminThatDiesAfterStoring } from './soak/lost-adds';
import { MetricTotals } from './soak/metric-totals';
import { expectedJobIds, SOAK_TASKS, type SoakTask, soakPayload, soakSchedules } from './soak/plan';
import { ExecutionRecorder } from './soak/recorder';
import { DeadLetterRedrive } from './soak/redrive';
import { printSoak } from './soak/report';
import { checkStops, runStops, STOPPABLE, StopRecord, stoppableHandler, stopsEnded } from './soak/stops';
import { CrashableWorkers } from './soak/worker-crashes';
import { startBenchDynamo } from './support/dynamo';
import { soakFlags } from './support/flags';
import { sleep } from './support/parallel';
import { startPollers, waitFor, waitWhileProgressing } from './support/pollers';
import { benchRuntime } from './support/runtime';
import { seedSchedules } from './support/schedules';
import { createBenchQueue, queueDepth, startBenchSqs } from './support/sqs';

const flags = parseScriptFlags(soakFlags());
const windowMs = flags.ci ? 30_000 : flags.minutes * 60_000;
const scheduleCount = flags.ci ? 200 : flags.schedules;
const churnCount = Math.max(8, Math.round(scheduleCount * 0.01));
const intervals = flags.ci ? [1, 2, 3, 5] : [10, 15, 20, 30, 60];
const drainMs = (flags.ci ? 150 : flags.drainSeconds) * 1000;
// A woken job whose message was lost while nothing else touches its task waits for a tick's repair:
// once the drain is over, crashes after a hand-off stop, and the last ones get two tick periods.
const lastRepairsMs = (2 * flags.tickSeconds + 5) * 1000;
/**
 * The drain lasts while handlers keep starting: the backlog task's line drains at the pace of its two
 * slots on this machine (a minute or more after the window). It ends red when no handler has started
 * for this long while something remains: longer than a dead run's lease and two tick periods, the
 * longest a line may wait for a crash's repair, and longer than a parked job's lease and a tick period,
 * the longest an added job whose send was lost waits when the answer to its tick's lease was lost too.
 */
const drainStallMs = Math.max(
  2 * flags.tickSeconds * 1000 + 30_000,
  PARKED_JOB_LEASE_MS + flags.tickSeconds * 1000 + 15_000,
);
/**
 * A worker invocation's time, and the queues' visibility timeout (an invocation ends within it, as
 * deployed): with the 3 s task timeout and the worker's 3 s safety margin, a run that ends in the first
 * few seconds of its invocation runs the job its slot was handed to itself.
 */
const SOAK_WORKER_TIMEOUT_SECONDS = 10;
/** Pollers of the queue for critical and woken jobs: its event source's own share, as deployed. */
const CRITICAL_WORKERS = defaultCriticalConcurrency(
  [
    ...Object.values(SOAK_TASKS).flatMap((task) =>
      task.maxRunningJobs === undefined ? [] : [task.maxRunningJobs],
    ),
    STOPPABLE.maxRunningJobs,
  ],
  LOCAL_CRITICAL_POLLERS_CEILING,
);
const tickMs = flags.tickSeconds * 1000;
const FAULT_RATES = {
  tickCrash: 0.02,
  workerCrash: 0.005,
  duplicate: 0.02,
  lostDelete: 0.01,
  throttle: 0.01,
  lostAnswer: 0.01,
  deadLetterCopy: 0.01,
  handlerThrows: 0.02,
  unstorableReturn: 0.01,
  overrun: 0.25,
  crashAfterHandOff: 0.1,
  noteCrash: 0.15,
  slowNotePut: 0.05,
  lostAdd: 0.25,
};
/** Every 15 s, 3 s in which every DynamoDB request is throttled (the store gives up within ~1 s). */
const THROTTLE_BURSTS = { everySeconds: 15, lastingSeconds: 3 };
/**
 * The deployed configuration (schedules on their note chains, two ticks fanning out to dispatchers in
 * this process as `npm start` does, ADR 0006–0008), with short recovery times so recovery fits in the
 * run: a task timeout of 3 s plus a 10 s lease margin.
 */
const SOAK_ENV = {
  SUNDIAL_JOB_LEASE_MARGIN_SECONDS: '10',
  // An added job whose send was lost (\`lostAdd\`) is sent by the tick 15 s after its run time, within the drain.
  SUNDIAL_UNCLAIMED_RESEND_SECONDS: '15',
  SUNDIAL_COUNTER_REPAIR_INTERVAL_SECONDS: '2',
};

/** The schedules must have been sent from their notes, through the faults on notes. */
function notesUnused(notes: NoteTotals): string[] {
  return notes.notesRead === 0 ? ['the dispatchers read no note'] : [];
}

async function main(): Promise<number> {
  quietSdkNodeVersionWarning();
  const startedAt = Date.now();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const faults = new Faults(FAULT_RATES, THROTTLE_BURSTS);
  const recorder = new ExecutionRecorder();
  const stopRecord = new StopRecord();
  const trace = new JobTrace();
  const metrics = new MetricTotals();
  const [dynamo, sqs] = await Promise.all([startBenchDynamo(), startBenchSqs()]);
  const dynamoClient = dynamo.newClient();
  injectThrottling(dynamoClient, faults);
  injectLostAnswers(dynamoClient, faults);
  try {
    let crashes: CrashableWorkers | undefined;
    const handlerEnv = { recorder, faults, trace, crashes: () => crashes };
    const caller = () => crashes?.caller() ?? 'tick/admin';
    const runtime = await benchRuntime(dynamo, sqs, {
      tasks: {
        ...Object.fromEntries(
          (Object.keys(SOAK_TASKS) as SoakTask[]).map((task) => [
            task,
            {
              handler: soakHandler(task, handlerEnv),
              maxRunningJobs: SOAK_TASKS[task].maxRunningJobs,
              resultTtlSeconds: SOAK_TASKS[task].resultTtlSeconds,
              timeoutSeconds: SOAK_TIMEOUT_SECONDS,
              retry: { maxAttempts: 10, backoffSeconds: 1, maxBackoffSeconds: 2 },
            },
          ]),
        ),
        // Its handlers run past the worker's first check for a cancellation (5 s), within the invocation.
        [STOPPABLE.task]: {
          handler: stoppableHandler(stopRecord),
          maxRunningJobs: STOPPABLE.maxRunningJobs,
          timeoutSeconds: 8,
          retry: { maxAttempts: 3, backoffSeconds: 1, maxBackoffSeconds: 2 },
        },
      },
      env: SOAK_ENV,
      visibilityTimeoutSeconds: SOAK_WORKER_TIMEOUT_SECONDS,
      maxReceiveCount: 100,
      dynamoClient,
    });
    trace.probeLine = wokenEntriesProbe(dynamo.newClient(), runtime.deps.config.tableName);
    // The queue for critical and woken jobs, as deployed: woken jobs hold a slot while their messages travel.
    const critical = await createBenchQueue(sqs.client, {
      visibilityTimeoutSeconds: SOAK_WORKER_TIMEOUT_SECONDS,
      maxReceiveCount: 100,
    });
    runtime.deps.config = { ...runtime.deps.config, criticalQueueUrl: critical.queueUrl };
    runtime.deps.queue = new SqsJobQueue({
      client: sqs.client,
      queueUrl: runtime.queue.queueUrl,
      criticalQueueUrl: critical.queueUrl,
    });
    const queues = [runtime.queue, critical];
    const redrive = new DeadLetterRedrive(sqs.client, runtime.queue.queueUrl, runtime.queue.dlqUrl);
    const criticalRedrive = new DeadLetterRedrive(sqs.client, critical.queueUrl, critical.dlqUrl);
    const faulty: RuntimeDeps = {
      ...runtime.deps,
      jobStore: trace.store(runtime.deps.jobStore, caller),
      scheduleStore: crashingDispatches(runtime.store, faults),
      queue: trace.queue(duplicatingQueue(runtime.deps.queue, faults, redrive.copy), caller),
      metricsSink: (line) => metrics.add(line),
    };
    crashes = new CrashableWorkers(faulty, faults, recorder, trace, new Set([BACKLOG_FEED.task]));
    const admin = adminThatDiesAfterStoring(runtime.newAdmin, faulty, faults);

    const firstFire = Math.ceil(Date.now() / 1000) * 1000 + 10_000 + scheduleCount * 5;
    const endAt = firstFire + windowMs - 1;
    const schedules = [
      ...soakSchedules(scheduleCount, churnCount, intervals, firstFire, endAt, Math.random),
      ...backlogSchedules(firstFire, endAt),
    ];
    const expected = expectedJobIds(schedules);
    const taskOfSchedule = new Map(schedules.map((schedule) => [schedule.id, schedule.task]));
    log(
      `soak: ${scheduleCount} schedules (${churnCount} changed mid-run) every ${intervals.join('/')} s for ${windowMs / 1000} s: ${expected.size} fires of unchanged schedules`,
    );
    await seedSchedules(runtime.seedTarget, schedules, {
      payloadOf: (schedule) => ({ ...soakPayload(schedule, 0) }),
    });

    let ticking = true;
    /** Each tick's run [start, end): the backlog check's repairs are due by the end of a tick. */
    const tickRuns: [number, number][] = [];
    const fanOut = { shardsLeased: 0, dispatchersStarted: 0 };
    const notes = emptyNoteTotals();
    const tickLoop = async (tick: () => Promise<TickSummary>, offsetMs: number) => {
      await sleep(offsetMs);
      while (ticking) {
        const started = Date.now();
        const summary = await tick().catch((error: unknown) => {
          log(`tick failed: ${String(error)}`);
          return undefined;
        });
        tickRuns.push([started, Date.now()]);
        fanOut.shardsLeased += summary?.shardsLeased ?? 0;
        fanOut.dispatchersStarted += summary?.dispatchersStarted ?? 0;
        if (summary) addNoteTotals(notes, summary.notes);
        await sleep(Math.max(0, tickMs - (Date.now() - started)) + Math.random() * 200);
      }
    };
    // Two ticks at once, all the time: their runs overlap and race for the same schedules.
    const ticks = [
      tickLoop(
        runtime.newTick(() => faulty),
        0,
      ),
      tickLoop(
        runtime.newTick(() => faulty),
        300,
      ),
    ];
    // One worker process per invocation at a time, as a Lambda container: a process that died takes its
    // state with it (a cache read it left unanswered would otherwise stall every later invocation).
    const idleWorkers: ReturnType<typeof runtime.newWorker>[] = [];
    const invokeWorker = async (event: SQSEvent, context: WorkerInvocationContext) => {
      const worker = idleWorkers.pop() ?? runtime.newWorker(crashes.deps);
      const response = await (crashes as CrashableWorkers).invoke((batch) => worker(batch, context), event);
      idleWorkers.push(worker);
      return response;
    };
    const pollers = startPollers({
      client: sqs.client,
      queueUrl: runtime.queue.queueUrl,
      queueArn: runtime.queue.queueArn,
      count: flags.workers,
      handler: invokeWorker,
      workerTimeoutSeconds: SOAK_WORKER_TIMEOUT_SECONDS,
    });
    const criticalPollers = startPollers({
      client: sqs.client,
      queueUrl: critical.queueUrl,
      queueArn: critical.queueArn,
      count: CRITICAL_WORKERS,
      handler: invokeWorker,
      workerTimeoutSeconds: SOAK_WORKER_TIMEOUT_SECONDS,
    });
    faults.startBursts();
    redrive.start(5_000);
    criticalRedrive.start(5_000);
    const feed = runBacklogFeed({ admin, startAt: firstFire, endAt, log });
    const capped = runCapped(admin, firstFire, log);
    const stops = runStops({ admin, record: stopRecord, startAt: firstFire, endAt, log });
    const churn = runChurn({
      admin,
      schedules,
      windowStartAt: firstFire,
      windowMs,
      random: Math.random,
      log,
    });

    await sleep(Math.max(0, endAt - Date.now()));
    const churnCalls = await churn;
    const cappedRun = await capped;
    await stops;
    for (const id of await feed) expected.add(id);
    faults.stop();
    log(`window over after ${((Date.now() - startedAt) / 1000).toFixed(0)} s; faults off, draining…`);
    const drainStarted = Date.now();
    const beforeDrain = checkChurn(schedules, churnCalls, recorder, trace);
    const depth = async (url: string) => (await queueDepth(sqs.client, url)).total;
    const queuesDepth = async (urls: string[]) =>
      (await Promise.all(urls.map(depth))).reduce((sum, count) => sum + count, 0);
    const readJob = (jobId: string) => runtime.store.getJob(jobId, Date.now());
    const drained = async () => {
      await recorder.restoreWrittenResults(readJob);
      return (
        [...expected, ...beforeDrain.mustRun].every((id) => recorder.executions.has(id)) &&
        (await queuesDepth(queues.map((queue) => queue.dlqUrl))) === 0 &&
        (await queuesDepth(queues.map((queue) => queue.queueUrl))) === 0 &&
        [...(await runtime.store.runningCounts()).values()].every((running) => running === 0) &&
        (await cappedFinished(runtime.store, cappedRun)) &&
        (await stopsEnded(stopRecord, readJob))
      );
    };
    let drainEnd = await waitWhileProgressing(drained, () => recorder.handlerStarts, {
      stallMs: drainStallMs,
      maxMs: drainMs,
    });
    if (drainEnd !== 'done') {
      faults.stopHandOffCrashes();
      if (await waitFor(drained, lastRepairsMs)) drainEnd = 'done';
    }
    const drainEndedAt = Date.now();
    const drainSeconds = (drainEndedAt - drainStarted) / 1000;
    ticking = false;
    await Promise.all([
      ...ticks,
      pollers.stop(),
      criticalPollers.stop(),
      redrive.stop(),
      criticalRedrive.stop(),
    ]);
    // Judged after the drain: how late fires were (and so how close to a change one may be cancelled) is known then.
    await recorder.restoreWrittenResults(readJob);
    const churnChecks = checkChurn(schedules, churnCalls, recorder, trace);
    const mustRun = new Set([...expected, ...churnChecks.mustRun]);
    const cappedUntil = drainEndedAt;
    const cappedChecks = await checkCapped(runtime.store, recorder, cappedRun, cappedUntil, trace);

    const backlog = checkBacklog({
      task: BACKLOG_FEED.task,
      limit: SOAK_TASKS.backlog.maxRunningJobs,
      spans: recorder.spans.get(BACKLOG_FEED.task) ?? [],
      deadHolds: crashes.deadHolds,
      lostWakings: crashes.lostWakings,
      joins: trace.joins,
      wokenWithSlot: trace.wokenWithSlot,
      wokenEnds: trace.wokenEnds,
      sends: trace.sends,
      lostResends: trace.lostResends,
      runEnds: trace.runEnds,
      claimedBefore: (jobId, at) => trace.claimedBefore(jobId, at),
      isOfTask: (jobId) => jobId.startsWith('backlog-'),
      ticks: tickRuns,
      lineEvents: trace.lineEvents,
      bursts: faults.burstPeriods,
      until: Date.now(),
    });
    const verdict = await checkSoak({
      expected: mustRun,
      allowed: new Set([...churnChecks.mayRun, ...cappedFireIds(cappedRun, cappedUntil)]),
      recorder,
      trace,
      store: runtime.store,
      queueDepth: () => queuesDepth(queues.map((queue) => queue.queueUrl)),
      dlqDepth: () => queuesDepth(queues.map((queue) => queue.dlqUrl)),
      taskOf: (jobId) =>
        isAddedBacklogJob(jobId)
          ? BACKLOG_FEED.task
          : (taskOfSchedule.get(jobId.slice(0, jobId.indexOf('@'))) ?? '?'),
      churnViolations: churnChecks.violations,
      backlogViolations: [
        ...backlog.violations,
        ...(fanOut.dispatchersStarted === 0 ? ['the ticks never handed shards to a dispatcher'] : []),
        ...notesUnused(notes),
      ],
      callsOf: (jobId) => {
        const fire = Number(jobId.slice(jobId.indexOf('@') + 1));
        return (churnCalls.get(jobId.slice(0, jobId.indexOf('@'))) ?? [])
          .map((call) => `${call.kind} +${call.calledAt - fire}…+${call.returnedAt - fire} ms`)
          .join(', ');
      },
      cancelledByChange: (jobId, job) =>
        cancelledByStop(churnCalls.get(jobId.slice(0, jobId.indexOf('@'))) ?? [], job),
    });
    const stopChecks = await checkStops(stopRecord, readJob);
    verdict.violations.push(...cappedChecks.violations, ...stopChecks.violations);
    printSoak({
      verdict,
      capped: cappedChecks.summary,
      faults,
      metrics,
      recorder,
      pollers: pollers.stats,
      redrive,
      churnCalls: churnChecks.calls,
      backlog: {
        ...backlog,
        fed: [...expected].filter((id) => id.startsWith('backlog-')).length,
      },
      resentWoken: trace.resentWoken,
      lostResends: [...trace.lostResends.values()].reduce((total, times) => total + times.length, 0),
      tickSeconds: flags.tickSeconds,
      tickRuns,
      fanOut,
      notes,
      inFlightMarginMs: churnChecks.inFlightMarginMs,
      payloadBytes: schedules.map((schedule) => schedule.payloadBytes),
      drainSeconds,
      drainEnd,
      drainStallSeconds: drainStallMs / 1000,
      seconds: (Date.now() - startedAt) / 1000,
    });
    console.log(`cancel_job of running jobs: ${stopChecks.summary}`);
    return verdict.violations.length === 0 ? 0 : 1;
  } finally {
    faults.stop();
    dynamoClient.destroy();
    await Promise.allSettled([sqs.stop(), dynamo.stop()]);
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
