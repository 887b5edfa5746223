import { DateTime } from 'luxon';
import type { EpochMs } from '../../core/clock';
import { zoneAbbreviation } from '../../core/format/time-in-zone';

/**
 * A table of fire times: number, wall-clock time in the zone (weekday, offset, abbreviation) and,
 * unless the zone is UTC, the time in UTC.
 *
 * @example
 * renderFireTimeTable([Date.parse('2026-03-08T07:00:00Z')], 'America/New_York');
 * // #  America/New_York                    UTC
 * // 1  Sun 2026-03-08 03:00:00 -04:00 EDT  2026-03-08 07:00:00Z
 */
export function renderFireTimeTable(fires: readonly EpochMs[], zone: string): string {
  const withMs = fires.some((fire) => fire % 1_000 !== 0);
  const timeFormat = withMs ? 'yyyy-MM-dd HH:mm:ss.SSS' : 'yyyy-MM-dd HH:mm:ss';
  const showUtc = zone.toUpperCase() !== 'UTC';
  const rows = fires.map((fire, index) => {
    const abbreviation = zoneAbbreviation(fire, zone);
    const local = DateTime.fromMillis(fire, { zone }).setLocale('en-US').toFormat(`ccc ${timeFormat} ZZ`);
    const utc = `${DateTime.fromMillis(fire, { zone: 'UTC' }).toFormat(timeFormat)}Z`;
    return [String(index + 1), abbreviation ? `${local} ${abbreviation}` : local, ...(showUtc ? [utc] : [])];
  });
  const table = [['#', zone, ...(showUtc ? ['UTC'] : [])], ...rows];
  const widths =
    table[0]?.map((_, column) => Math.max(...table.map((row) => (row[column] ?? '').length))) ?? [];
  return table
    .map((row) =>
      row
        .map((cell, column) =>
          column === 0 ? cell.padStart(widths[0] ?? 0) : cell.padEnd(widths[column] ?? 0),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
