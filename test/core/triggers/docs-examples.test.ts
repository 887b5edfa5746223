import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../../lib/cli/main';
import { ManualClock } from '../../../lib/core/clock';
import { parseTrigger } from '../../../lib/core/triggers';
import { fencedBlocks, shellWords, transcripts } from '../../docs/support/markdown';

/**
 * docs/triggers.md shows real output: every `$ npx sundial preview …` transcript is run here (in
 * process, with a fixed clock) and must print exactly what the page shows, and `$ echo $?` the
 * exit code of the command before it. Every JSON trigger on the page must be valid.
 */

const doc = readFileSync(resolve(import.meta.dirname, '../../../docs/triggers.md'), 'utf8');
const blocks = fencedBlocks(doc);

/** Each rule the page states, and a command its example must run. */
const RULE_EXAMPLES: Readonly<Record<string, string>> = {
  'an and consumes the fire times that formed it': '"type": "and", "threshold_seconds": 1',
  'pairing restarts at every whole UTC hour': '--from 2026-01-01T00:59:56Z',
  'a list is the union of its members': "'0 9 * * MON-FRI,1'",
  'the DST gap rule holds for calendar_interval': '"start_date": "2026-03-07", "hour": 2, "minute": 30',
  'end_at before start_at is rejected': '"end_at": "2026-05-01T11:00:00+02:00"',
  'timestamps are kept to the millisecond': '"run_at": "2026-05-01T09:30:00.1239+02:00"',
  'day-of-week steps run up to 7 = Sunday': "'0 9 * * 1/3'",
  'a day field is restricted unless exactly *': "'0 0 */2 * MON'",
  'eventbridge cron skips a wall time in a DST gap': "'cron(30 2 * * ? *)'",
  'eventbridge cron fires a repeated wall time once': "'cron(0 * * * ? *)'",
  'eventbridge rate is elapsed time': '"expression": "rate(1 day)"',
  'a Sundial cron in EventBridge syntax points to cron(…)': "'0 10 ? * MON *'",
};

async function sundial(args: readonly string[]) {
  let output = '';
  const write = (text: string) => {
    output += text;
  };
  const code = await run(args, {
    stdout: { write },
    stderr: { write },
    clock: new ManualClock(Date.parse('2026-01-01T00:00:00Z')),
  });
  return { code, output };
}

const examples = blocks.flatMap(({ body }) => transcripts(body));

describe('docs/triggers.md', () => {
  it('shows an example of every rule it states', () => {
    const missing = Object.entries(RULE_EXAMPLES).filter(
      ([, command]) => !examples.some((example) => example.command.includes(command)),
    );
    expect(missing.map(([rule]) => rule)).toEqual([]);
  });

  it('shows what sundial preview really prints', async () => {
    const differences: string[] = [];
    let lastCode: number | undefined;
    for (const { command, output } of examples) {
      const { words } = shellWords(command);
      if (command === 'echo $?') {
        if (String(lastCode) !== output.trimEnd())
          differences.push(`exit code ${lastCode}, documented ${output}`);
        continue;
      }
      expect(words.slice(0, 2), command).toEqual(['npx', 'sundial']);
      const result = await sundial(words.slice(2));
      lastCode = result.code;
      // Blank lines between a transcript and the next command are layout.
      if (result.output.trimEnd() !== output.trimEnd()) differences.push(`$ ${command}\n${result.output}`);
    }
    expect(differences).toEqual([]);
  });

  it('shows only valid triggers in its JSON examples', () => {
    const triggers = blocks
      .filter(({ language }) => language === 'json')
      .map(({ body }) => JSON.parse(body) as unknown)
      .filter((value) => typeof value === 'object' && value !== null && 'type' in value);
    expect(triggers.length).toBeGreaterThanOrEqual(6);
    for (const trigger of triggers) expect(parseTrigger(trigger)).toEqual(trigger);
  });
});
