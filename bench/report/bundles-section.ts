import { type BundleRow, type BundlesResult, TASK } from '../scenarios/bundles';
import type { ColdStartSample } from '../support/cold-start';
import { percentile } from '../support/stats';

/**
 * The bundles run as two tables: every module's size and import, then the worker's cold start with its
 * first two invocations. Columns against the baseline only when the run had one.
 */
export function bundlesMarkdown(result: BundlesResult): string {
  const baselineOf = (row: BundleRow) =>
    row.lambda && !row.lambda.baseline
      ? result.rows.find((other) => other.lambda?.baseline && other.lambda.name === row.lambda?.name)
      : undefined;
  const ratio = (row: BundleRow, figure: (row: BundleRow) => number) => {
    const base = baselineOf(row);
    return base ? `${Math.round((100 * figure(row)) / figure(base))} %` : '';
  };
  const compared = result.baseline !== undefined;
  const modules = table(
    ['module', 'KB', 'of it AWS SDK', 'import ms', 'import CPU ms'],
    compared ? ['import vs baseline', 'import CPU vs baseline'] : [],
    result.rows.map((row) => [
      [
        row.label,
        row.bytes === undefined ? '' : fixed(row.bytes / 1000),
        row.sdkBytes === undefined ? '' : fixed(row.sdkBytes / 1000),
        fixed(importMs(row)),
        fixed(importCpuMs(row)),
      ],
      [ratio(row, importMs), ratio(row, importCpuMs)],
    ]),
  );
  const workers = table(
    [
      'bundle',
      "import + to the job's log ms",
      'import + 1st invocation ms',
      '1st invocation ms (CPU)',
      "1st: to the job's log ms (CPU)",
      '2nd invocation ms (CPU)',
      "2nd: to the job's log ms (CPU)",
    ],
    compared ? ["import + to the job's log vs baseline", 'import + 1st vs baseline'] : [],
    result.rows
      .filter((row) => row.lambda?.name === 'worker')
      .map((row) => [
        [
          row.label,
          fixed(jobStartMs(row)),
          fixed(coldStartMs(row)),
          // Each invocation in full, then until its job's log.
          ...[0, 1].flatMap((index) => [
            withCpu(
              row,
              (sample) => sample.invocationsMs[index],
              (sample) => sample.invocationsCpuMs[index],
            ),
            withCpu(
              row,
              (sample) => sample.jobLogMs[index],
              (sample) => sample.jobLogCpuMs[index],
            ),
          ]),
        ],
        [ratio(row, jobStartMs), ratio(row, coldStartMs)],
      ]),
  );
  return [
    '## Lambda bundles: size and cold start',
    '',
    `\`cdk synth\` (the pinned CLI, offline) builds each Lambda's bundle; each module below was then imported in ${result.reps} fresh Node processes started as Lambda starts them (\`--enable-source-maps\`), every module once a round, in turn. Medians; CPU is the process's own (user + system).${compared ? ` Baseline: the bundles of \`${result.baseline}\`, timed in the same rounds.` : ''} KB = 1,000 bytes.`,
    '',
    ...modules,
    '',
    `The worker's processes then ran two invocations of one \`${TASK}\` job each (it publishes \`job.started\` and \`job.succeeded\`) against DynamoDB Local, the SQS emulator and a local PutEvents endpoint: the first is the rest of the cold start, the second a warm invocation. "To the job's log" is from the invocation's start to the handler's first log line, when the job has started; CPU in brackets.`,
    '',
    ...workers,
    '',
  ].join('\n');
}

/** A markdown table: the first column left-aligned, the others right; `extra` columns appended to each row. */
function table(
  headers: readonly string[],
  extra: readonly string[],
  rows: readonly [cells: readonly string[], extraCells: readonly string[]][],
): string[] {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  const all = [...headers, ...extra];
  return [
    line(all),
    line(all.map((_, index) => (index === 0 ? '---' : '---:'))),
    ...rows.map(([cells, extraCells]) => line([...cells, ...extraCells.slice(0, extra.length)])),
  ];
}

type Figure = number | null | undefined;

/** The median of one figure of a row's samples (a sample without it counts as not a number). */
function sampled(row: BundleRow, figure: (sample: ColdStartSample) => Figure): number {
  const values = row.samples.map((sample) => figure(sample) ?? Number.NaN).sort((a, b) => a - b);
  return percentile(values, 0.5);
}

function withCpu(
  row: BundleRow,
  wall: (sample: ColdStartSample) => Figure,
  cpu: (sample: ColdStartSample) => Figure,
): string {
  return `${fixed(sampled(row, wall))} (${fixed(sampled(row, cpu))})`;
}

const importMs = (row: BundleRow) => sampled(row, (sample) => sample.importMs);
const importCpuMs = (row: BundleRow) => sampled(row, (sample) => sample.importCpuMs);
/** Import and first invocation of one process: a cold start until its first batch is done. */
const coldStartMs = (row: BundleRow) =>
  sampled(row, (sample) => sample.importMs + (sample.invocationsMs[0] ?? Number.NaN));
/** Import and the first invocation until its job logged: the fire lag a cold start adds. */
const jobStartMs = (row: BundleRow) =>
  sampled(row, (sample) => sample.importMs + (sample.jobLogMs[0] ?? Number.NaN));

function fixed(value: number): string {
  return Number.isFinite(value) ? value.toFixed(0) : '';
}
