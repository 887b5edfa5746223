/**
 * A plain-text table: a header row and left-aligned columns two spaces apart, no trailing spaces.
 *
 * @example
 * renderTable(['ID', 'TASK'], [['nightly', 'send-report']]);
 * // ID       TASK
 * // nightly  send-report
 */
export function renderTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const table = [headers, ...rows];
  const widths = headers.map((_, column) => Math.max(...table.map((row) => (row[column] ?? '').length)));
  return table
    .map((row) =>
      headers
        .map((_, column) => (row[column] ?? '').padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/**
 * Label/value lines, labels padded to one width: `sundial schedules get` and `jobs get`.
 *
 * @example
 * renderFields([['id', 'nightly'], ['task', 'send-report']]);
 * // id    nightly
 * // task  send-report
 */
export function renderFields(fields: readonly (readonly [string, string])[]): string {
  const width = Math.max(...fields.map(([label]) => label.length));
  return fields
    .map(([label, value]) => `${label.padEnd(width)}  ${value.replace(/\n/g, `\n${' '.repeat(width + 2)}`)}`)
    .join('\n');
}
