/**
 * `npm run bench:limited`: the limited-task scenarios on their own (about a minute): 30 jobs of 1 s on
 * `maxRunningJobs` 1 and 3 (time against the ideal, slot use), and a critical job added behind 100
 * waiting normal jobs, and one added while every worker is busy and 100 normal jobs are queued (with the
 * queue for critical jobs, and with one queue). Starts its own DynamoDB Local and SQS emulator; prints the figures.
 */
import { saturatedWorkersScenario } from './scenarios/critical-queue';
import { criticalJobScenario, limitedTaskScenario } from './scenarios/limited-task';
import { startBenchDynamo } from './support/dynamo';
import { startBenchSqs } from './support/sqs';

async function main(): Promise<void> {
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const [dynamo, sqs] = await Promise.all([startBenchDynamo(), startBenchSqs()]);
  try {
    for (const maxRunningJobs of [1, 3]) {
      await limitedTaskScenario(dynamo, sqs, { jobs: 30, runMs: 1_000, maxRunningJobs, workers: 4, log });
    }
    await criticalJobScenario(dynamo, sqs, { waitingNormal: 100, runMs: 200, workers: 4, log });
    await saturatedWorkersScenario(dynamo, sqs, {
      queuedNormal: 100,
      runMs: 1_000,
      workers: 2,
      criticalWorkers: 2,
      log,
    });
  } finally {
    await Promise.allSettled([sqs.stop(), dynamo.stop()]);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
