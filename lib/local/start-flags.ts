import { Command, Option } from '@commander-js/extra-typings';
import { DEFAULT_LOCAL_PORT } from './platform';
import { positiveNumber, wholeNumberFrom } from './script-flags';

/** The flags of `npm start` (lib/local/main.ts), with their help. */
export function startFlags() {
  return new Command('npm start --')
    .description(
      'Runs Sundial on this machine: DynamoDB Local, the SQS emulator, the tick, workers and the admin API.',
    )
    .addOption(
      new Option('--port <n>', 'port of the admin API and dashboard on 127.0.0.1')
        .env('SUNDIAL_PORT')
        .default(DEFAULT_LOCAL_PORT)
        .argParser(wholeNumberFrom(1, 65_535)),
    )
    .option('--data-dir <dir>', 'keep schedules, jobs and waiting messages in <dir> between runs')
    .option('--tick-seconds <s>', 'how often the tick runs', positiveNumber, 1)
    .option('--workers <n>', 'worker pollers running at once', wholeNumberFrom(1), 4);
}
