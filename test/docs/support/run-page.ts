import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Checked, DocRunner } from './doc-runner';
import { commandLines, type FencedBlock, transcripts } from './markdown';

export interface PageOptions {
  /** Blocks that are not run, by their first line, each with why. */
  notRun: Readonly<Record<string, string>>;
  /** Waits before a command (by its text) for the state the page shows it in: what a reader waits for. */
  before?: Readonly<Record<string, () => Promise<void>>>;
  /**
   * Read-only commands that show a moving platform at one moment (a schedule's latest fires): when one
   * prints otherwise, it runs again after its `before` wait, up to three times in all, as a reader who
   * looked a moment too late looks again. A command that changes anything is never run twice.
   */
  snapshots?: readonly string[];
  /** Runs a block of another kind (a log excerpt, a module); false when it is not one it knows. */
  other?(block: FencedBlock, problems: string[]): Promise<boolean>;
}

const firstLine = (block: FencedBlock) => block.body.split('\n')[0] ?? '';
const SNAPSHOT_LOOKS = 3;

/** A command the runner refused (one naming an id no earlier output showed) is a problem of the page, not the end of the run. */
async function checkedOrFailure(check: () => Promise<Checked>): Promise<Checked> {
  try {
    return await check();
  } catch (error) {
    return { agrees: false, actual: `not run: ${error instanceof Error ? error.message : String(error)}` };
  }
}

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
        const looks = options.snapshots?.includes(transcript.command) ? SNAPSHOT_LOOKS : 1;
        let checked: Checked | undefined;
        for (let look = 1; look <= looks && !checked?.agrees; look += 1) {
          await ready(transcript.command);
          checked = await checkedOrFailure(() => runner.check(transcript));
        }
        const { agrees, actual } = checked as Checked;
        if (process.env.PRINT_DOCS) console.log(`$ ${transcript.command}\n${actual}\n`);
        if (!agrees) problems.push(`$ ${transcript.command}\n${actual}`);
      }
    } else if (block.language === 'sh') {
      for (const command of commandLines(block.body)) {
        await ready(command);
        const result = await checkedOrFailure(async () => {
          const { code, output } = await runner.run(command);
          return { agrees: code === 0, actual: `${output}[exit ${code}]` };
        });
        if (!result.agrees) problems.push(`${command}\n${result.actual}`);
      }
    } else if (!(await options.other?.(block, problems))) {
      problems.push(`a block the test does not know how to run (line ${block.line}): ${firstLine(block)}`);
    }
  }
  const unused = Object.keys(options.before ?? {}).filter((command) => !waited.has(command));
  for (const command of unused) problems.push(`the page no longer runs: ${command}`);
  return problems;
}
