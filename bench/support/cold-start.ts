import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { SQSEvent } from 'aws-lambda';
import { PROJECT_ROOT } from '../../lib/infra/sundial';

const run = promisify(execFile);

/** What one fresh Node process measured. */
export interface ColdStartSample {
  /** From the first line of the process's script to the module's namespace: what Lambda's init spends on it. */
  importMs: number;
  /** CPU (user + system, every thread) spent meanwhile: steadier than the wall clock on a shared machine. */
  importCpuMs: number;
  /** Each invocation of the module's `handler`, in order: the first one is the cold start's. */
  invocationsMs: number[];
  /** The CPU each invocation took (this process's: not the emulators'). */
  invocationsCpuMs: number[];
  /**
   * From each invocation's start to its first log line about a job (one with a `jobId`): at the info
   * level the worker writes none before a job runs, so this is when the first handler of the batch
   * logged. Null when the invocation logged none.
   */
  jobLogMs: (number | null)[];
  /** The CPU each invocation took until then. */
  jobLogCpuMs: (number | null)[];
  /** `batchItemFailures` of each invocation (an SQS handler's messages it did not finish). */
  failures: number[];
}

const MARKER = 'SUNDIAL_COLD_START ';

/**
 * Imports a module and calls its `handler` with each of `BENCH_EVENTS`, timing both; a plain ES module
 * run by `node -e`, so nothing but Node itself is loaded before the import.
 */
const SCRIPT = `
const cpu = process.cpuUsage();
const started = performance.now();
const loaded = await import(process.env.BENCH_MODULE);
const importMs = performance.now() - started;
const used = process.cpuUsage(cpu);
let jobLogAt = null;
let jobLogCpu = null;
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  if (jobLogAt === null && String(chunk).includes('"jobId"')) {
    jobLogAt = performance.now();
    jobLogCpu = process.cpuUsage();
  }
  return write(chunk, ...rest);
};
const cpuMs = (since, until) => (until.user - since.user + until.system - since.system) / 1000;
const invocationsMs = [];
const invocationsCpuMs = [];
const jobLogMs = [];
const jobLogCpuMs = [];
const failures = [];
for (const event of JSON.parse(process.env.BENCH_EVENTS)) {
  const deadline = Date.now() + 60_000;
  const requestId = crypto.randomUUID();
  const context = {
    functionName: 'sundial-bench', functionVersion: '$LATEST', memoryLimitInMB: '1024', awsRequestId: requestId,
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:sundial-bench',
    logGroupName: '/aws/lambda/sundial-bench', logStreamName: requestId, callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => deadline - Date.now(),
  };
  jobLogAt = null;
  const invocationCpu = process.cpuUsage();
  const invoked = performance.now();
  const response = await loaded.handler(event, context);
  invocationsMs.push(performance.now() - invoked);
  invocationsCpuMs.push(cpuMs(invocationCpu, process.cpuUsage()));
  jobLogMs.push(jobLogAt === null ? null : jobLogAt - invoked);
  jobLogCpuMs.push(jobLogAt === null ? null : cpuMs(invocationCpu, jobLogCpu));
  failures.push(response?.batchItemFailures?.length ?? 0);
}
const sample = {
  importMs, importCpuMs: (used.user + used.system) / 1000, invocationsMs, invocationsCpuMs, jobLogMs, jobLogCpuMs, failures,
};
write('\\n${MARKER}' + JSON.stringify(sample) + '\\n');
process.exit(0);
`;

/**
 * Imports `file` in a fresh Node process started with `nodeOptions` (a Lambda function's `NODE_OPTIONS`)
 * and only `env` for its environment, then invokes its handler with each of `events`. The process runs
 * in the project, so bare imports (`@aws-sdk/*` of a bundle that leaves the SDK out) resolve from its
 * node_modules as they would from the Lambda runtime's copy.
 */
export async function coldStart(
  file: string,
  options: { nodeOptions: readonly string[]; env: Record<string, string>; events?: readonly SQSEvent[] },
): Promise<ColdStartSample> {
  const { stdout } = await run(
    process.execPath,
    [...options.nodeOptions, '--input-type=module', '-e', SCRIPT],
    {
      cwd: PROJECT_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        ...options.env,
        BENCH_MODULE: pathToFileURL(file).href,
        BENCH_EVENTS: JSON.stringify(options.events ?? []),
      },
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const line = stdout.split('\n').find((text) => text.startsWith(MARKER));
  if (!line) throw new Error(`no measurement from ${file}:\n${stdout.slice(-2000)}`);
  return JSON.parse(line.slice(MARKER.length)) as ColdStartSample;
}
