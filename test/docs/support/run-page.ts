import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DocRunner } from './doc-runner';
import { commandLines, type FencedBlock, transcripts } from './markdown';

export interface PageOptions {
  /** Blocks that are not run, by their first line, each with why. */
  notRun: Readonly<Record<string, string>>;
  /** Waits before a command (by its text) for the state the page shows it in: what a reader waits for. */
  before?: Readonly<Record<string, () => Promise<void>>>;
  /** Runs a block of another kind (a log excerpt, a module); false when it is not one it knows. */
  other?(block: FencedBlock, problems: string[]): Promise<boolean>;
}

const firstLine = (block: FencedBlock) => block.body.split('\n')[0] ?? '';

/**
 * Runs a page's blocks in order: a block naming a file (```yaml schedules.yaml) is written for the
 * commands after it; `$ …` transcripts must print what they show (with the exit code of an `[exit N]`
 * line, else 0); other shell blocks must exit 0. Every other block must be one `other` runs or one of
 * `notRun`. Answers every problem found, each with what really happened (`PRINT_DOCS=1` prints all
 * outputs, to bring the page up to date).
 */
export async function runPage(
  runner: DocRunner,
  blocks: readonly FencedBlock[],
  options: PageOptions,
): Promise<string[]> {
  const problems: string[] = [];
  const waited = new Set<string>();
  const ready = async (command: string) => {
    const wait = options.before?.[command];
    if (wait) {
      waited.add(command);
      await wait();
    }
  };
  for (const block of blocks) {
    if (options.notRun[firstLine(block)] !== undefined) continue;
    if (block.file !== undefined) {
      writeFileSync(join(runner.dir, block.file), `${block.body}\n`);
    } else if (block.body.startsWith('$ ')) {
      for (const transcript of transcripts(block.body)) {
        await ready(transcript.command);
        const { agrees, actual } = await runner.check(transcript);
        if (process.env.PRINT_DOCS) console.log(`$ ${transcript.command}\n${actual}\n`);
        if (!agrees) problems.push(`$ ${transcript.command}\n${actual}`);
      }
    } else if (block.language === 'sh') {
      for (const command of commandLines(block.body)) {
        await ready(command);
        const result = await runner.run(command);
        if (result.code !== 0) problems.push(`${command}\n${result.output}[exit ${result.code}]`);
      }
    } else if (!(await options.other?.(block, problems))) {
      problems.push(`a block the test does not know how to run (line ${block.line}): ${firstLine(block)}`);
    }
  }
  const unused = Object.keys(options.before ?? {}).filter((command) => !waited.has(command));
  for (const command of unused) problems.push(`the page no longer runs: ${command}`);
  return problems;
}
