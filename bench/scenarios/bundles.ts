import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { SQSEvent } from 'aws-lambda';
import { pollOnce } from '../../lib/adapters/sqs/event-source';
import { decodeJobMessage } from '../../lib/core/model/job-message';
import { PROJECT_ROOT } from '../../lib/infra/sundial';
import { LOCAL_REGION } from '../../lib/local/dynamodb-local';
import { startPutEventsServer } from '../../lib/local/put-events-server';
import { readBundleMeta } from '../support/bundle-meta';
import { type ColdStartSample, coldStart } from '../support/cold-start';
import type { BenchDynamo } from '../support/dynamo';
import { benchRuntime } from '../support/runtime';
import type { BenchSqs } from '../support/sqs';
import { type LambdaBundle, lambdaBundles, synthOffline } from '../support/synth';

/** One module timed: a Lambda's bundle, or a reference beside them. */
export interface BundleRow {
  label: string;
  /** Bytes of the module (a bundle's `index.mjs`); absent for the references. */
  bytes?: number;
  /** Of them, the AWS SDK's (from the bundle's metafile; absent without one). */
  sdkBytes?: number;
  /** The Lambda it is the bundle of, and whether it is the baseline's. */
  lambda?: { name: string; baseline: boolean };
  samples: ColdStartSample[];
}

export interface BundlesResult {
  reps: number;
  rows: BundleRow[];
  /** The folder of the baseline bundles, as given. */
  baseline?: string;
}

export interface BundlesOptions {
  /** Fresh processes per module. */
  reps: number;
  /** A `cdk.out` inside the project whose bundles are timed beside this build's (e.g. the main branch's). */
  baseline?: string;
  log: (line: string) => void;
}

/** The worker's job in the bench: the README's task, which publishes `job.started` and `job.succeeded`. */
export const TASK = 'send-report';
const PAYLOAD = { team: 'ops', recipients: ['ops@example.com'] };
/** What each worker invocation publishes: its one job's two events. */
const EVENTS_PER_JOB = 2;
const INVOCATIONS = 2;

/**
 * Builds the Lambdas' bundles with `cdk synth` and times each as Lambda's init loads it, beside an
 * empty module and the SDK clients the worker starts with as the runtime provides them (imported
 * from node_modules). The worker's processes then run two invocations of one `send-report` job each
 * against DynamoDB Local, the SQS emulator and a local PutEvents endpoint: the first is the rest of a
 * cold start, the second a warm invocation. Every module is timed in each round, in an order that
 * turns from round to round.
 */
export async function bundlesScenario(
  dynamo: BenchDynamo,
  sqs: BenchSqs,
  options: BundlesOptions,
): Promise<BundlesResult> {
  const outdir = mkdtempSync(join(PROJECT_ROOT, '.cache', 'bench-bundles-'));
  let published = 0;
  const events = await startPutEventsServer({ onEvents: (entries) => (published += entries.length) });
  try {
    options.log('bundles: cdk synth…');
    await synthOffline(outdir);
    const rows: TimedRow[] = [...referenceRows(outdir), ...bundleRows(lambdaBundles(outdir), false)];
    if (options.baseline) rows.push(...bundleRows(lambdaBundles(insideProject(options.baseline)), true));
    const runtime = await benchRuntime(dynamo, sqs, { tasks: { [TASK]: { handler: () => null } } });
    const admin = runtime.newAdmin(() => runtime.deps);
    const env = {
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ENDPOINT_URL_SQS: sqs.endpoint,
      AWS_ENDPOINT_URL_EVENTBRIDGE: events.endpoint,
      SUNDIAL_TABLE_NAME: runtime.deps.config.tableName,
      SUNDIAL_QUEUE_URL: runtime.queue.queueUrl,
      SUNDIAL_DEAD_LETTER_QUEUE_URL: runtime.queue.dlqUrl,
      SUNDIAL_EVENT_BUS_NAME: 'sundial-bench',
    };
    const jobEvents = async (): Promise<SQSEvent[]> => {
      const received: SQSEvent[] = [];
      for (let job = 0; job < INVOCATIONS; job += 1) {
        const answer = await admin({ action: 'add_job', task: TASK, payload: PAYLOAD });
        if (!answer.ok) throw new Error(`add_job: ${answer.error.message}`);
      }
      const queue = {
        client: sqs.client,
        queueUrl: runtime.queue.queueUrl,
        queueArn: runtime.queue.queueArn,
      };
      while (received.length < INVOCATIONS) {
        await pollOnce({ ...queue, batchSize: 1, waitTimeSeconds: 1 }, async (event) => {
          received.push(event);
          return { batchItemFailures: [] };
        });
      }
      return received;
    };
    for (let round = 0; round < options.reps; round += 1) {
      options.log(`bundles: round ${round + 1} of ${options.reps}`);
      for (let turn = 0; turn < rows.length; turn += 1) {
        const row = rows[(round + turn) % rows.length] as TimedRow;
        const worker = row.lambda?.name === 'worker';
        const invocations = worker ? await jobEvents() : [];
        const before = published;
        const sample = await coldStart(row.file, { nodeOptions: row.nodeOptions, env, events: invocations });
        if (worker) await checkJobsRan(row.label, sample, invocations, published - before, runtime.store);
        row.samples.push(sample);
      }
    }
    return {
      reps: options.reps,
      rows: rows.map(({ label, bytes, sdkBytes, lambda, samples }) => ({
        label,
        bytes,
        sdkBytes,
        lambda,
        samples,
      })),
      ...(options.baseline && { baseline: options.baseline }),
    };
  } finally {
    await events.stop();
    rmSync(outdir, { recursive: true, force: true });
  }
}

type TimedRow = BundleRow & { file: string; nodeOptions: string[] };

/** Lambda starts Node with `--enable-source-maps` (every function's `NODE_OPTIONS`): so are the references. */
const LAMBDA_NODE_OPTIONS = ['--enable-source-maps'];

function referenceRows(outdir: string): TimedRow[] {
  const nothing = join(outdir, 'nothing.mjs');
  writeFileSync(nothing, 'export {};\n');
  const clients = join(outdir, 'sdk-clients.mjs');
  writeFileSync(
    clients,
    ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/client-sqs']
      .map((name) => `import ${JSON.stringify(name)};\n`)
      .join(''),
  );
  return [
    { label: 'nothing (an empty module)', file: nothing, nodeOptions: LAMBDA_NODE_OPTIONS, samples: [] },
    {
      label: "the SDK clients the worker starts with (DynamoDB, lib-dynamodb, SQS), from the runtime's copy",
      file: clients,
      nodeOptions: LAMBDA_NODE_OPTIONS,
      samples: [],
    },
  ];
}

const ORDER = ['tick', 'dispatcher', 'worker', 'admin'];

function bundleRows(bundles: readonly LambdaBundle[], baseline: boolean): TimedRow[] {
  return [...bundles]
    .sort((a, b) => ORDER.indexOf(a.name) - ORDER.indexOf(b.name))
    .map((bundle) => {
      const file = join(bundle.dir, 'index.mjs');
      const meta = metaOf(bundle.dir);
      return {
        label: baseline ? `${bundle.name} (baseline)` : bundle.name,
        bytes: statSync(file).size,
        ...(meta && { sdkBytes: meta.sdkBytes }),
        lambda: { name: bundle.name, baseline },
        file,
        nodeOptions: bundle.nodeOptions,
        samples: [],
      };
    });
}

/** The metafile of a bundle; a baseline built before bundles carried one has none. */
function metaOf(dir: string) {
  try {
    return readBundleMeta(dir);
  } catch {
    return undefined;
  }
}

/** A baseline's bundles may leave the SDK out: they must sit inside the project to find it in node_modules. */
function insideProject(dir: string): string {
  const absolute = resolve(dir);
  const path = relative(PROJECT_ROOT, absolute);
  if (path.startsWith('..') || isAbsolute(path)) {
    throw new Error(`--baseline ${dir}: the cdk.out must be inside the project (${PROJECT_ROOT})`);
  }
  return absolute;
}

/** A worker process's timings count only if both its jobs succeeded and published their events. */
async function checkJobsRan(
  label: string,
  sample: ColdStartSample,
  invocations: readonly SQSEvent[],
  published: number,
  store: { getJob(id: string, now: number): Promise<{ status: string } | undefined> },
): Promise<void> {
  const ids = invocations.flatMap((event) =>
    event.Records.map((record) => {
      const decoded = decodeJobMessage(record.body);
      return decoded.ok ? decoded.message.job.id : record.messageId;
    }),
  );
  const statuses = await Promise.all(ids.map(async (id) => (await store.getJob(id, Date.now()))?.status));
  const expected = ids.length * EVENTS_PER_JOB;
  if (sample.failures.some((count) => count > 0) || statuses.some((status) => status !== 'success')) {
    throw new Error(`${label}: the jobs did not succeed (${statuses.join(', ')})`);
  }
  if (published !== expected) throw new Error(`${label}: ${published} events published, not ${expected}`);
}
