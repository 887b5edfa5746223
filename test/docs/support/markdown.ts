/** The pieces of a Markdown page that its tests run: fenced blocks, shell transcripts and command lines. */

export interface FencedBlock {
  /** The fence's language: `sh`, `json`, `yaml`, `ts`, or empty. */
  language: string;
  /** A file name after the language (```yaml schedules.yaml): the block is that file's content. */
  file?: string;
  /** The block's text, with the indentation of its fence (inside a list item) removed. */
  body: string;
  /** The line of its opening fence, from 1. */
  line: number;
}

export function fencedBlocks(markdown: string): FencedBlock[] {
  return [...markdown.matchAll(/^( *)```(\w*)(?: +(\S+))?\n([\s\S]*?)\n *```/gm)].map(
    ([whole, indent, language, file, body]) => ({
      language: language ?? '',
      ...(file !== undefined && { file }),
      body: (body ?? '')
        .split('\n')
        .map((line) => line.slice((indent ?? '').length))
        .join('\n'),
      line: markdown.slice(0, markdown.indexOf(whole)).split('\n').length,
    }),
  );
}

/** A command of a transcript (`$ …`) and the lines the page shows it printing. */
export interface Transcript {
  command: string;
  output: string;
}

/** The commands of a block that shows a terminal session (its lines starting with `$ `). */
export function transcripts(body: string): Transcript[] {
  const result: Transcript[] = [];
  for (const line of body.split('\n')) {
    if (line.startsWith('$ ')) result.push({ command: line.slice(2), output: '' });
    else if (result.length > 0) {
      const last = result[result.length - 1] as Transcript;
      last.output += `${line}\n`;
    }
  }
  return result;
}

/** The commands of a block of commands without output: one a line, `\` continuing a line. */
export function commandLines(body: string): string[] {
  return body
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/**
 * Shell words of a command line: single and double quotes group, `#` at the start of a word begins a
 * comment (returned apart: it says how the page ran the command), nothing else is special.
 */
export function shellWords(command: string): { words: string[]; comment?: string } {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (let index = 0; index < command.length; index++) {
    const char = command[index] as string;
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      word ??= '';
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (char === '#' && word === undefined) {
      return { words, comment: command.slice(index + 1).trim() };
    } else {
      word = (word ?? '') + char;
    }
  }
  if (word !== undefined) words.push(word);
  return { words };
}

/** The part of a page under `heading` (a whole heading line, `## Job states`), up to the next heading as high. */
export function section(markdown: string, heading: string): string {
  const level = /^#+/.exec(heading)?.[0] ?? '';
  const lines = markdown.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`the page has no heading '${heading}'`);
  const end = lines.findIndex(
    (line, index) =>
      index > start && /^#+ /.test(line) && (/^#+/.exec(line)?.[0] ?? '').length <= level.length,
  );
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** A table of a page: its header's cells and each row's, trimmed. */
export interface MarkdownTable {
  header: string[];
  rows: string[][];
}

/** The tables of `markdown` (lines between pipes, the second one the header's `---` rule). */
export function markdownTables(markdown: string): MarkdownTable[] {
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((cell) => cell.trim());
  const tables: MarkdownTable[] = [];
  let table: MarkdownTable | undefined;
  for (const line of markdown.split('\n')) {
    if (!line.trim().startsWith('|')) {
      table = undefined;
    } else if (!table) {
      table = { header: cells(line), rows: [] };
      tables.push(table);
    } else if (!/^\|?\s*:?-/.test(line.trim())) {
      table.rows.push(cells(line));
    }
  }
  return tables;
}
