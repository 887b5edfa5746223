import { setMaxListeners } from 'node:events';
import { StoreUnavailableError } from '../../core/errors';
import { type NoteItemToWrite, noteItemName, noteItemsToWrite } from '../../core/ports/due-note-items';
import { type FetchNoteItems, findLiveNotesIn, readNotePage } from '../../core/ports/due-note-reads';
import {
  type DueNote,
  type DueNotesPage,
  type FindLiveNotesInput,
  NOTE_WRITE_DEADLINE_MS,
  type ReadDueNotesInput,
  type WriteDueNotesInput,
} from '../../core/ports/due-notes';
import type { ChainStart } from '../../core/ports/schedule-store';
import { sameItem } from './item-equality';
import { conditionFailure, type StoreContext, type StoredItem } from './store-context';
import { dueNotesPartition, shardOf, TTL_ATTRIBUTE, ttlSeconds } from './table-design';

/**
 * A write of due notes is given up after `NOTE_WRITE_DEADLINE_MS`, so a note counted as written landed
 * before anyone read its bucket (ADR 0007, placement margin). One given up may still land: its writer
 * counts it as lost and writes it again, and readers take the two as one.
 */
export const NOTE_WRITE_TIMEOUT_MS = NOTE_WRITE_DEADLINE_MS;

/**
 * Puts the note items of a write in parallel, each conditional on its key being free: an item is never
 * overwritten, and the retry of a put that had applied (its answer lost) finds its own item. Like a
 * fire log's items, a note item is billed by its size (1 WRU per KB, at most 25) and written to no index.
 * Throws `StoreUnavailableError` when the puts do not all land within `timeoutMs`.
 */
export async function writeDueNotes(
  context: StoreContext,
  input: WriteDueNotesInput,
  timeoutMs = NOTE_WRITE_TIMEOUT_MS,
): Promise<void> {
  const items = noteItemsToWrite(input, (scheduleId) => shardOf(scheduleId, context.shards));
  const abort = new AbortController();
  // One listener per put in flight: not a leak.
  setMaxListeners(items.length + 1, abort.signal);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(
        new StoreUnavailableError('writeDueNotes', {
          cause: new Error(`the notes were not all written within ${timeoutMs} ms`),
        }),
      );
    }, timeoutMs);
  });
  try {
    await Promise.race([
      Promise.all(items.map((item) => putNoteItem(context, item, abort.signal))),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A note item as stored: in its shard's bucket, named after its writer, expiring with its TTL. */
function storedNoteItem(note: NoteItemToWrite): StoredItem {
  return {
    pk: dueNotesPartition(note.shard, note.bucket),
    sk: note.name,
    entries: note.entries,
    [TTL_ATTRIBUTE]: ttlSeconds(note.expiresAt),
  };
}

/** The item of a chain's first note, as its schedule's write puts it (ADR 0008). */
export function firstNoteItem(context: StoreContext, start: ChainStart): StoredItem {
  const [item] = noteItemsToWrite({ writer: start.writer, notes: [start.note], now: start.now }, (id) =>
    shardOf(id, context.shards),
  );
  if (!item) throw new Error('a chain start holds one note');
  return storedNoteItem(item);
}

/** Deletes the item a write of this one note by `writer` put. */
export async function removeDueNote(context: StoreContext, writer: string, note: DueNote): Promise<void> {
  const shard = shardOf(note.entry.scheduleId, context.shards);
  await context.delete('removeDueNote', {
    Key: { pk: dueNotesPartition(shard, note.bucket), sk: noteItemName(writer, 0) },
  });
}

async function putNoteItem(context: StoreContext, note: NoteItemToWrite, signal: AbortSignal): Promise<void> {
  const Item = storedNoteItem(note);
  try {
    await context.put(
      'writeDueNotes',
      {
        Item,
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
      signal,
    );
  } catch (error) {
    const { old } = conditionFailure(error);
    if (old && sameItem(old, Item)) return;
    throw new Error(
      `due note item '${Item.pk}' / '${note.name}' exists already: each call of writeDueNotes needs a writer of its own`,
    );
  }
}

/** A page of a shard's notes after its cursor, strongly consistent (one query per bucket page). */
export function readDueNotes(context: StoreContext, input: ReadDueNotesInput): Promise<DueNotesPage> {
  return readNotePage(input, context.shards, fetchNoteItems(context, 'readDueNotes'));
}

/** The live notes of many schedules of one shard: each bucket given read once, strongly consistent. */
export function findLiveNotes(
  context: StoreContext,
  input: FindLiveNotesInput,
): Promise<Map<string, DueNote>> {
  return findLiveNotesIn(input, context.shards, fetchNoteItems(context, 'findLiveNotes'));
}

function fetchNoteItems(context: StoreContext, operation: string): FetchNoteItems {
  return async (shard, bucket, afterItem, limit) => {
    const pk = dueNotesPartition(shard, bucket);
    const output = await context.query(operation, {
      KeyConditionExpression: '#pk = :pk',
      ProjectionExpression: '#sk, #entries',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#entries': 'entries' },
      ExpressionAttributeValues: { ':pk': pk },
      ConsistentRead: true,
      Limit: limit,
      ...(afterItem !== undefined && { ExclusiveStartKey: { pk, sk: afterItem } }),
    });
    const items = (output.Items ?? []).map((item) => ({ name: String(item.sk), entries: item.entries }));
    const lastItem = output.LastEvaluatedKey?.sk;
    return { items, ...(typeof lastItem === 'string' && { lastItem }) };
  };
}
