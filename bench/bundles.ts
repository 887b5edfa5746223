/**
 * `npm run bench:bundles`: each Lambda's bundle as `cdk synth` builds it, its size and its cold start
 * (import, and the worker's first invocations) beside an empty module, in one run of a minute or two.
 * Starts its own DynamoDB Local and SQS emulator; writes bench/results/bundles.md. `npm run bench` runs
 * the same measurement as part of its report.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, relative } from 'node:path';
import { parseScriptFlags } from '../lib/local/script-flags';
import { bundlesMarkdown } from './report/bundles-section';
import { bundlesScenario } from './scenarios/bundles';
import { startBenchDynamo } from './support/dynamo';
import { bundlesFlags } from './support/flags';
import { startBenchSqs } from './support/sqs';

const flags = parseScriptFlags(bundlesFlags());

async function main(): Promise<void> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const load = loadavg().map((value) => value.toFixed(2));
  const [dynamo, sqs] = await Promise.all([startBenchDynamo(), startBenchSqs()]);
  try {
    const result = await bundlesScenario(dynamo, sqs, {
      reps: flags.reps,
      ...(flags.baseline !== undefined && { baseline: flags.baseline }),
      log,
    });
    const markdown = `${bundlesMarkdown(result)}\nNode ${process.version}; load average when the run started: ${load.join(', ')}.\n`;
    await mkdir(flags.out, { recursive: true });
    const path = join(flags.out, 'bundles.md');
    await writeFile(path, markdown);
    log(`wrote ${relative(process.cwd(), path)}`);
    process.stdout.write(markdown);
  } finally {
    await Promise.allSettled([sqs.stop(), dynamo.stop()]);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
