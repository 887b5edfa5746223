/**
 * `npm run soak`: second-level schedules run for a few minutes on DynamoDB Local and fauxqs while
 * faults are injected (tick crashes between send and release, worker crashes mid-job, duplicated and
 * redelivered messages, DynamoDB throttling, two ticks at once); then checks that every fire ran
 * exactly once, no task exceeded its limit, counters are back to 0 and no message is left. Exits 1 on
 * any violation. `--ci`: a one-minute variant with fewer schedules and the same checks.
 */
import type { RuntimeDeps } from '../lib/runtime/dependencies';
import { checkSoak } from './soak/checks';
import { crashingReleases, duplicatingQueue, Faults, injectThrottling } from './soak/faults';
import { MetricTotals } from './soak/metric-totals';
import { expectedJobIds, SOAK_TASKS, type SoakTask, soakSchedules } from './soak/plan';
import { ExecutionRecorder } from './soak/recorder';
import { printSoak } from './soak/report';
import { CrashableWorkers } from './soak/worker-crashes';
import { readFlags } from './support/args';
import { startBenchDynamo } from './support/dynamo';
import { sleep } from './support/parallel';
import { startPollers, waitFor } from './support/pollers';
import { benchRuntime } from './support/runtime';
import { seedSchedules } from './support/schedules';
import { queueDepth, startBenchSqs } from './support/sqs';

const USAGE = `Usage: npm run soak -- [options]

  --minutes <n>        how long the schedules fire (default 5)
  --schedules <n>      how many (default 2000)
  --workers <n>        worker pollers (default 16)
  --drain-seconds <n>  how long recovery may take after the window (default 120)
  --ci                 about a minute: 200 schedules firing every 1–5 s for 30 s, the same faults and checks`;

const flags = readFlags(USAGE, {
  minutes: 5,
  schedules: 2000,
  workers: 16,
  'drain-seconds': 120,
  ci: false,
});
const windowMs = flags.ci ? 30_000 : flags.minutes * 60_000;
const scheduleCount = flags.ci ? 200 : flags.schedules;
const intervals = flags.ci ? [1, 2, 3, 5] : [5, 10, 15, 20, 30];
const drainMs = (flags.ci ? 90 : flags['drain-seconds']) * 1000;
const FAULT_RATES = {
  tickCrash: 0.02,
  workerCrash: 0.005,
  duplicate: 0.02,
  lostDelete: 0.01,
  throttle: 0.01,
};
/** Short leases (task timeout 3 s + 10 s margin; schedules 10 s) so recovery fits in the run. */
const SOAK_ENV = {
  SUNDIAL_LOOKAHEAD_SECONDS: '10',
  SUNDIAL_SCHEDULE_LEASE_SECONDS: '10',
  SUNDIAL_TICK_BUDGET_MS: '5000',
  SUNDIAL_JOB_LEASE_MARGIN_SECONDS: '10',
  SUNDIAL_COUNTER_REPAIR_INTERVAL_SECONDS: '0',
};

async function main(): Promise<number> {
  const startedAt = Date.now();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const faults = new Faults(FAULT_RATES);
  const recorder = new ExecutionRecorder();
  const metrics = new MetricTotals();
  const [dynamo, sqs] = await Promise.all([startBenchDynamo(), startBenchSqs()]);
  const dynamoClient = dynamo.newClient();
  injectThrottling(dynamoClient, faults);
  try {
    let crashes: CrashableWorkers | undefined;
    const handlerOf = (task: SoakTask) => async (_payload: unknown, context: { jobId: string }) => {
      recorder.start(task);
      await sleep(5 + Math.random() * 45);
      if (crashes?.dead()) {
        recorder.end(task);
        return new Promise<never>(() => {}); // the process died mid-job: this run never ends
      }
      recorder.end(task);
      crashes?.completed(context.jobId);
      return { ok: true };
    };
    const runtime = await benchRuntime(dynamo, sqs, {
      tasks: Object.fromEntries(
        (Object.keys(SOAK_TASKS) as SoakTask[]).map((task) => [
          task,
          {
            handler: handlerOf(task),
            maxRunningJobs: SOAK_TASKS[task].maxRunningJobs,
            timeoutSeconds: 3,
            retry: { maxAttempts: 10, backoffSeconds: 1, maxBackoffSeconds: 2 },
          },
        ]),
      ),
      env: SOAK_ENV,
      visibilityTimeoutSeconds: 5,
      maxReceiveCount: 100,
      dynamoClient,
    });
    const faulty: RuntimeDeps = {
      ...runtime.deps,
      scheduleStore: crashingReleases(runtime.store, faults),
      queue: duplicatingQueue(runtime.deps.queue, faults),
      metricsSink: (line) => metrics.add(line),
    };
    crashes = new CrashableWorkers(faulty, faults, recorder);

    const firstFire = Math.ceil(Date.now() / 1000) * 1000 + 10_000 + scheduleCount * 5;
    const endAt = firstFire + windowMs - 1;
    const schedules = soakSchedules(scheduleCount, intervals, firstFire, endAt, Math.random);
    const expected = expectedJobIds(schedules);
    const taskOfSchedule = new Map(schedules.map((schedule) => [schedule.id, schedule.task]));
    log(
      `soak: ${scheduleCount} schedules every ${intervals.join('/')} s for ${windowMs / 1000} s: ${expected.size} fires`,
    );
    await seedSchedules(runtime.store, schedules);

    let ticking = true;
    const tickLoop = async (tick: () => Promise<unknown>, offsetMs: number) => {
      await sleep(offsetMs);
      while (ticking) {
        const started = Date.now();
        await tick().catch((error: unknown) => log(`tick failed: ${String(error)}`));
        await sleep(Math.max(0, 1000 - (Date.now() - started)) + Math.random() * 200);
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
    const worker = runtime.newWorker(crashes.deps);
    const pollers = startPollers({
      client: sqs.client,
      queueUrl: runtime.queue.queueUrl,
      queueArn: runtime.queue.queueArn,
      count: flags.workers,
      handler: (event) => (crashes as CrashableWorkers).invoke(worker, event),
    });

    await sleep(Math.max(0, endAt - Date.now()));
    faults.enabled = false;
    log(`window over after ${((Date.now() - startedAt) / 1000).toFixed(0)} s; faults off, draining…`);
    const drainStarted = Date.now();
    const depth = async (url: string) => (await queueDepth(sqs.client, url)).total;
    await waitFor(
      async () =>
        [...expected].every((id) => recorder.executions.has(id)) &&
        (await depth(runtime.queue.queueUrl)) === 0 &&
        [...(await runtime.store.runningCounts()).values()].every((running) => running === 0),
      drainMs,
    );
    const drainSeconds = (Date.now() - drainStarted) / 1000;
    ticking = false;
    await Promise.all([...ticks, pollers.stop()]);

    const verdict = await checkSoak({
      expected,
      recorder,
      store: runtime.store,
      queueDepth: () => depth(runtime.queue.queueUrl),
      dlqDepth: () => depth(runtime.queue.dlqUrl),
      taskOf: (jobId) => taskOfSchedule.get(jobId.slice(0, jobId.indexOf('@'))) ?? '?',
    });
    printSoak({
      verdict,
      faults,
      metrics,
      recorder,
      pollers: pollers.stats,
      drainSeconds,
      seconds: (Date.now() - startedAt) / 1000,
    });
    return verdict.violations.length === 0 ? 0 : 1;
  } finally {
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
