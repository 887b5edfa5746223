import type { EpochMs } from '../clock';
import { LIMITS } from '../limits';
import { ID_PATTERN } from './job-id';

/**
 * A due note (ADR 0007, 0008): where one schedule's chain stands, kept among many others in a shared
 * note item instead of on the schedule's own item. It stands only while the schedule item still names
 * its `chain` and is not paused (ADR 0008: every admin write that moves the fire times starts a new one).
 */
export interface DueNoteEntry {
  scheduleId: string;
  /** The chain the note belongs to: the token its schedule item names while the chain moves it on. */
  chain: string;
  /** The first fire time not dispatched. */
  nextFireAt: EpochMs;
  /** Fire times dispatched so far, as the item-indexed path would have counted them in `runs`. */
  runs: number;
  /** The latest fire time dispatched; `null` before the first. */
  lastFireAt: EpochMs | null;
}

/** Which schedule and chain a note belongs to. */
export type DueNoteIdentity = Pick<DueNoteEntry, 'scheduleId' | 'chain'>;

/** A chain token: short, lower-case letters and digits (it is written in every note entry). */
export const CHAIN_PATTERN = /^[0-9a-z]{1,16}$/;

export type DecodedNoteEntry = { ok: true; entry: DueNoteEntry } | { ok: false; reason: string };

/**
 * The bytes of an item's entries: its keys and TTL fit in the rest of 25 KB, so one note item is
 * billed at most 25 write units.
 */
export const NOTE_ITEM_ENTRY_BYTES = 24 * 1024;

const RADIX = 36;
const NO_FIRE = '-';
/** As `toString(36)` writes a whole number: no sign, no leading zero (one text per entry). */
const NUMBER_TEXT = /^(0|[1-9a-z][0-9a-z]{0,10})$/;
const FIELDS = 5;
/** A chain, three numbers of at most 11 digits, their separators and an id: anything longer is not an entry. */
export const MAX_ENTRY_LENGTH = 17 + 3 * 12 + LIMITS.idLength;

/**
 * One entry as text: `<chain> <nextFireAt> <runs> <lastFireAt or -> <schedule id>`, the numbers in base
 * 36 (a note item is billed by its bytes: 9 characters for an epoch ms instead of 13), the id last (ids
 * contain no space). Throws on an entry no reader could take back.
 */
export function encodeNoteEntry(entry: DueNoteEntry): string {
  const problem = entryProblem(entry);
  if (problem) throw new RangeError(`due note of schedule '${entry.scheduleId}': ${problem}`);
  const last = entry.lastFireAt === null ? NO_FIRE : entry.lastFireAt.toString(RADIX);
  return [
    entry.chain,
    entry.nextFireAt.toString(RADIX),
    entry.runs.toString(RADIX),
    last,
    entry.scheduleId,
  ].join(' ');
}

/** The entry `text` holds, or why it holds none (a corrupt entry is skipped by its reader, not fatal). */
export function decodeNoteEntry(text: unknown): DecodedNoteEntry {
  if (typeof text !== 'string') return { ok: false, reason: 'not a string' };
  if (text.length > MAX_ENTRY_LENGTH)
    return { ok: false, reason: `longer than ${MAX_ENTRY_LENGTH} characters` };
  const parts = text.split(' ');
  if (parts.length !== FIELDS) return { ok: false, reason: `not ${FIELDS} fields` };
  const [nextFireAt, runs] = parts.slice(1, 3).map(readNumber);
  const lastText = parts[3];
  const lastFireAt = lastText === NO_FIRE ? null : readNumber(lastText);
  const entry = {
    scheduleId: parts[4] ?? '',
    chain: parts[0] ?? '',
    nextFireAt,
    runs,
    lastFireAt,
  };
  if (!isEntry(entry)) return { ok: false, reason: 'a number field is not a base-36 whole number' };
  const problem = entryProblem(entry);
  return problem ? { ok: false, reason: problem } : { ok: true, entry };
}

/**
 * Encoded entries grouped into items of at most `maxBytes` each (every entry costs its length and one
 * byte of list overhead; entries are ASCII: ids match `ID_PATTERN`), in the order given.
 */
export function packNoteEntries(texts: readonly string[], maxBytes = NOTE_ITEM_ENTRY_BYTES): string[][] {
  const items: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const text of texts) {
    const cost = text.length + 1;
    if (current.length > 0 && bytes + cost > maxBytes) {
      items.push(current);
      current = [];
      bytes = 0;
    }
    current.push(text);
    bytes += cost;
  }
  if (current.length > 0) items.push(current);
  return items;
}

/**
 * Of the notes found, the one `identity`'s chain stands at: copies of one chain meet where their notes
 * are read as one, from the earliest next fire time noted (ADR 0007). Notes of other chains are not its.
 */
export function liveNoteOf<T extends { entry: DueNoteEntry }>(
  notes: Iterable<T>,
  identity: DueNoteIdentity,
): T | undefined {
  let live: T | undefined;
  for (const note of notes) {
    const { entry } = note;
    const ours = entry.scheduleId === identity.scheduleId && entry.chain === identity.chain;
    if (ours && (live === undefined || entry.nextFireAt < live.entry.nextFireAt)) live = note;
  }
  return live;
}

function readNumber(text: string | undefined): number | undefined {
  return text !== undefined && NUMBER_TEXT.test(text) ? Number.parseInt(text, RADIX) : undefined;
}

function isEntry(
  value: {
    [Field in keyof DueNoteEntry]: DueNoteEntry[Field] | undefined;
  },
): value is DueNoteEntry {
  return Object.values(value).every((field) => field !== undefined);
}

function entryProblem(entry: DueNoteEntry): string | undefined {
  const { scheduleId } = entry;
  if (scheduleId.length === 0 || scheduleId.length > LIMITS.idLength || !ID_PATTERN.test(scheduleId)) {
    return `the schedule id must be 1–${LIMITS.idLength} characters matching ${ID_PATTERN}`;
  }
  if (!CHAIN_PATTERN.test(entry.chain)) return `the chain must match ${CHAIN_PATTERN}`;
  const whole = (value: number) => Number.isSafeInteger(value) && value >= 0;
  for (const field of ['nextFireAt', 'runs'] as const) {
    if (!whole(entry[field])) return `${field} must be a whole number from 0`;
  }
  if (entry.lastFireAt !== null && !whole(entry.lastFireAt)) {
    return 'lastFireAt must be a whole number from 0, or null';
  }
  return undefined;
}
