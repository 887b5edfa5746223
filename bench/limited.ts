/**
 * `npm run bench:limited`: the limited-task scenarios on their own (about four minutes): 30 jobs of 1 s
 * on `maxRunningJobs` 1 and 3 with the ticks every second and every minute (time against the ideal,
 * slot use, the longest a slot stood free), a critical job added behind 100
 * waiting normal jobs, one added while every worker is busy and 100 normal jobs are queued (with the
 * queue for critical jobs, and with one queue), and a backlog of 500 jobs on `rateLimit` 5 per second
 * (`--rate-jobs`: the most starts in any second measured in the handlers, the rate achieved). Starts its
 * own DynamoDB Local and SQS emulator; prints the figures.
 */
import { parseScriptFlags } from '../lib/local/script-flags';
import { saturatedWorkersScenario } from './scenarios/critical-queue';
import { criticalJobScenario, limitedTaskScenario, TICK_PERIODS } from './scenarios/limited-task';
import { rateLimitScenario } from './scenarios/rate-limited-task';
import { startBenchDynamo } from './support/dynamo';
import { limitedFlags } from './support/flags';
import { startBenchSqs } from './support/sqs';

const flags = parseScriptFlags(limitedFlags());

async function main(): Promise<void> {
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const [dynamo, sqs] = await Promise.all([startBenchDynamo(), startBenchSqs()]);
  try {
    for (const tickSeconds of TICK_PERIODS) {
      for (const maxRunningJobs of [1, 3]) {
        await limitedTaskScenario(dynamo, sqs, {
          jobs: 30,
          runMs: 1_000,
          maxRunningJobs,
          workers: 4,
          tickSeconds,
          log,
        });
      }
    }
    await criticalJobScenario(dynamo, sqs, { waitingNormal: 100, runMs: 200, workers: 4, log });
    await saturatedWorkersScenario(dynamo, sqs, {
      queuedNormal: 100,
      runMs: 1_000,
      workers: 2,
      criticalWorkers: 2,
      log,
    });
    if (flags.rateJobs > 0) {
      await rateLimitScenario(dynamo, sqs, {
        jobs: flags.rateJobs,
        max: 5,
        perSeconds: 1,
        runMs: 50,
        workers: 4,
        log,
      });
    }
  } finally {
    await Promise.allSettled([sqs.stop(), dynamo.stop()]);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
