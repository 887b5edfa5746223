import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait';
import { type DocRunner, startDocRunner } from './support/doc-runner';
import { type FencedBlock, fencedBlocks } from './support/markdown';
import { runPage } from './support/run-page';

/**
 * README.md's examples run against the real local platform with the tasks in `functions/`, in the
 * page's order: the line `npm start` prints for the schedules declared in code, the AWS CLI request, the log lines it shows, the requests in its text, the task module
 * it shows, the CLI commands and the preview transcript. Blocks that are not run say why below.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const page = readFileSync(resolve(ROOT, 'README.md'), 'utf8');

const NOT_RUN = {
  'npm install && npm start   # run the whole platform locally':
    'installing and starting: this test starts the same platform itself',
  'EventBridge rule (1 min) ─► tick Lambda ─► dispatchers (read due notes, send, note the next) ─► SQS (DelaySeconds) ─► worker Lambda':
    'a diagram',
  '// app.ts: run it with `npx tsx app.ts` while npm start runs':
    'application code on port 4750 with a line that must not compile: test/client/client.e2e.test.ts makes the same call against the same tasks, and test/client/compile-errors.types.ts is type-checked',
  "  schedules: [{ id: 'ops-weekday-report', trigger: '0 9 * * MON-FRI', timezone: 'Europe/Berlin',":
    'an excerpt of functions/send-report.ts, which the page shows whole',
};

/** The admin requests the page's text gives inline: `{"action":…}`. */
const inlineRequests = [...page.matchAll(/`(\{"action":[^`]+\})`/g)].map(([, request]) => request ?? '');

let runner: DocRunner;

beforeAll(async () => {
  runner = await startDocRunner({ anchor: '2026-11-22T00:37:40Z', shownPort: 4750 });
});

afterAll(async () => {
  await runner?.stop();
});

const firstLine = (block: FencedBlock) => block.body.split('\n')[0] ?? '';

/** The module the page shows is the one that ships. */
function checkTaskModule(block: FencedBlock, problems: string[]) {
  const file = firstLine(block).slice('// '.length);
  const shipped = readFileSync(resolve(ROOT, file), 'utf8');
  if (`${block.body.split('\n').slice(1).join('\n')}\n` !== shipped)
    problems.push(`${file} differs from the page`);
}

/** The platform printed the block's lines, in this order (among others): answers the printed ones, or null. */
async function checkPrinted(block: FencedBlock, problems: string[]): Promise<string[] | null> {
  const shown = block.body.split('\n');
  const found = await waitFor(
    async () => inOrder(shown, runner.logs),
    (lines) => lines.length === shown.length,
    20_000,
  );
  if (found.length === shown.length) return found;
  problems.push(`not printed:\n${shown.slice(found.length).join('\n')}\nprinted:\n${runner.logs.join('\n')}`);
  return null;
}

/**
 * The lines the platform prints for the schedule the page added, in this order (among others); then
 * the requests the text gives for reading its results back.
 */
async function checkLog(block: FencedBlock, problems: string[]) {
  const found = await checkPrinted(block, problems);
  if (found === null) return;
  runner.learn(block.body, found.join('\n'));
  for (const request of inlineRequests) {
    const command = `aws lambda invoke --function-name sundial-admin --payload '${request}' /dev/stdout`;
    const result = await runner.run(command);
    if (result.code !== 0) problems.push(`${request} answered ${result.output}`);
  }
}

/** The printed lines that match the shown ones, in their order (as many as were found). */
function inOrder(shown: readonly string[], printed: readonly string[]): string[] {
  const found: string[] = [];
  let from = 0;
  for (const line of shown) {
    const at = printed.findIndex(
      (candidate, index) => index >= from && runner.mask.text(candidate) === runner.mask.text(line),
    );
    if (at < 0) break;
    found.push(printed[at] as string);
    from = at + 1;
  }
  return found;
}

describe('README.md, run against the local platform', () => {
  it('shows what the platform, its CLI and its task modules really do', async () => {
    let kinds = { module: 0, log: 0, reconcile: 0 };
    const problems = await runPage(runner, fencedBlocks(page), {
      notRun: NOT_RUN,
      async other(block, found) {
        if (block.language === 'ts' && firstLine(block).startsWith('// functions/')) {
          checkTaskModule(block, found);
          kinds = { ...kinds, module: kinds.module + 1 };
          return true;
        }
        if (firstLine(block).startsWith('schedules from code: ')) {
          await checkPrinted(block, found);
          kinds = { ...kinds, reconcile: kinds.reconcile + 1 };
          return true;
        }
        if (/^\d\d:\d\d:\d\d (info|warn|error) /.test(firstLine(block))) {
          await checkLog(block, found);
          kinds = { ...kinds, log: kinds.log + 1 };
          return true;
        }
        return false;
      },
    });

    expect(problems).toEqual([]);
    expect(kinds).toEqual({ module: 1, log: 1, reconcile: 1 });
    expect(inlineRequests.length).toBe(2);
  });
});
