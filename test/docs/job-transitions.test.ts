import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { JOB_STATES, JOB_TRANSITIONS } from '../../lib/core/model/job-states';
import { type MarkdownTable, markdownTables, section } from './support/markdown';

const PAGE = new URL('../../docs/architecture.md', import.meta.url);
const HEADING = '## Job states';

/** The table of the page's job states section whose header starts with `firstColumn`. */
function tableOf(firstColumn: string): MarkdownTable {
  const tables = markdownTables(section(readFileSync(PAGE, 'utf8'), HEADING));
  const table = tables.find((candidate) => candidate.header[0] === firstColumn);
  if (!table) throw new Error(`docs/architecture.md '${HEADING}' has no table headed '${firstColumn}'`);
  return table;
}

/** The cell of `row` under the column `name` of `table`. */
function cellOf(table: MarkdownTable, row: string[], name: string): string {
  const column = table.header.indexOf(name);
  if (column < 0) throw new Error(`the table headed '${table.header[0]}' has no column '${name}'`);
  return row[column] ?? '';
}

/** The names a cell lists in backticks, comma-separated (`running`, `stalled`). */
function namesIn(cell: string, where: string): string[] {
  return cell.split(',').map((part) => {
    const name = /^`([a-z_]+)`$/.exec(part.trim())?.[1];
    if (name === undefined) throw new Error(`${where}: '${part.trim()}' is not a name in backticks`);
    return name;
  });
}

interface Move {
  from: readonly string[];
  to: readonly string[];
}

/** Each row of the page's transition table by its action. */
function transitionsOnPage(): Map<string, Move> {
  const table = tableOf('action');
  const moves = new Map<string, Move>();
  for (const row of table.rows) {
    const [action = ''] = namesIn(cellOf(table, row, 'action'), `a row of the transition table`);
    if (moves.has(action)) throw new Error(`the transition table has two rows for \`${action}\``);
    const where = `row \`${action}\``;
    moves.set(action, {
      from: namesIn(cellOf(table, row, 'from'), where),
      to: namesIn(cellOf(table, row, 'to'), where),
    });
  }
  return moves;
}

const listed = (names: readonly string[]) => names.map((name) => `\`${name}\``).join(', ');

/** How the page's rows differ from the code's table, one line per differing row and column. */
function differences(page: Map<string, Move>, code: Readonly<Record<string, Move>>): string[] {
  const actions = new Set([...Object.keys(code), ...page.keys()]);
  return [...actions].flatMap((action) => {
    const shown = page.get(action);
    const coded = code[action];
    if (!shown) return [`row \`${action}\`: in the code, not on the page`];
    if (!coded) return [`row \`${action}\`: on the page, not in the code`];
    return (['from', 'to'] as const).flatMap((column) => {
      const same =
        shown[column].length === coded[column].length &&
        shown[column].every((state) => coded[column].includes(state));
      return same
        ? []
        : [
            `row \`${action}\`, ${column}: the page says ${listed(shown[column])}, the code ${listed(coded[column])}`,
          ];
    });
  });
}

describe(`docs/architecture.md '${HEADING}' and the code's transition table`, () => {
  it('names every state of JOB_STATES, and no other', () => {
    const table = tableOf('state');
    const onPage = table.rows.flatMap((row) => namesIn(cellOf(table, row, 'state'), 'the state table'));

    expect({
      'missing on the page': JOB_STATES.filter((state) => !onPage.includes(state)),
      'on the page only': onPage.filter((state) => !(JOB_STATES as readonly string[]).includes(state)),
    }).toEqual({ 'missing on the page': [], 'on the page only': [] });
  });

  it('shows every action of JOB_TRANSITIONS with the states it moves a job from and to', () => {
    expect(differences(transitionsOnPage(), JOB_TRANSITIONS)).toEqual([]);
  });
});
