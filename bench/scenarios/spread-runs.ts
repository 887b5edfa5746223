import type { BenchDynamo } from '../support/dynamo';
import type { BenchSqs } from '../support/sqs';
import { type SpreadResult, spreadScenario } from './spread';

/** The spread runs of `npm run bench`: an unlimited task, then one with `maxRunningJobs` (0: skipped). */
export async function spreadRuns(
  dynamo: BenchDynamo,
  sqs: BenchSqs,
  flags: {
    spreadSchedules: number;
    spreadLimit: number;
    sendPhaseTolerance: number;
    workers: number;
    quick?: boolean;
    log: (line: string) => void;
  },
): Promise<{ runs: SpreadResult[]; sendPhaseToleranceMs: number } | undefined> {
  if (flags.spreadSchedules === 0) return undefined;
  const schedules = flags.quick ? Math.min(500, flags.spreadSchedules) : flags.spreadSchedules;
  const runs: SpreadResult[] = [];
  for (const maxRunningJobs of flags.spreadLimit > 0 ? [null, flags.spreadLimit] : [null]) {
    flags.log(`traffic spread over the tick period${maxRunningJobs === null ? '' : ', limited task'}…`);
    runs.push(
      await spreadScenario(dynamo, sqs, {
        schedules,
        periodSeconds: 60,
        workers: flags.workers,
        maxRunningJobs,
        log: flags.log,
      }),
    );
  }
  return { runs, sendPhaseToleranceMs: flags.sendPhaseTolerance };
}
