import type { EpochMs } from '../../core/clock';
import type { Schedule } from '../../core/model/schedule';
import {
  checkBucket,
  type NoteItemToWrite,
  noteItemName,
  noteItemsToWrite,
} from '../../core/ports/due-note-items';
import {
  checkShard,
  type FetchNoteItems,
  findLiveNotesIn,
  readNotePage,
} from '../../core/ports/due-note-reads';
import type {
  DueNote,
  DueNoteStore,
  DueNotesPage,
  FindLiveNotesInput,
  ReadDueNotesInput,
  WriteDueNotesInput,
} from '../../core/ports/due-notes';
import { shardOf } from '../dynamodb/table-design';
import { MemoryDueShardLeases } from './memory-due-shard-leases';

interface StoredNoteItem {
  entries: unknown;
  expiresAt: EpochMs;
}

/**
 * The in-memory due notes and cursors: the same contract as the DynamoDB store's (`due-notes.ts`,
 * `due-note-cursors.ts`), entries stored encoded as there.
 */
export abstract class MemoryDueNotes extends MemoryDueShardLeases implements DueNoteStore {
  /** Note items by partition (`<shard>#<bucket>`), then by name. */
  private readonly noteItems = new Map<string, Map<string, StoredNoteItem>>();
  private readonly cursors = new Map<number, number>();

  abstract readSchedules(ids: readonly string[]): Promise<Map<string, Schedule>>;

  async writeDueNotes(input: WriteDueNotesInput): Promise<void> {
    this.putNoteItems(noteItemsToWrite(input, (scheduleId) => this.noteShardOf(scheduleId)));
  }

  /** Puts note items, none of whose names is taken by other entries (checked first: all or nothing). */
  protected putNoteItems(items: readonly NoteItemToWrite[]): void {
    for (const item of items) {
      const existing = this.partition(item.shard, item.bucket).get(item.name);
      if (existing && JSON.stringify(existing.entries) !== JSON.stringify(item.entries)) {
        throw new Error(
          `due note item '${item.name}' exists already in bucket ${item.bucket}: each call of writeDueNotes needs a writer of its own`,
        );
      }
    }
    for (const { shard, bucket, name, entries, expiresAt } of items) {
      this.partition(shard, bucket).set(name, { entries: [...entries], expiresAt });
    }
  }

  async removeDueNote(writer: string, note: DueNote): Promise<void> {
    const shard = this.noteShardOf(note.entry.scheduleId);
    this.noteItems.get(partitionKey(shard, note.bucket))?.delete(noteItemName(writer, 0));
  }

  readDueNotes(input: ReadDueNotesInput): Promise<DueNotesPage> {
    return readNotePage(input, this.dueShards, this.fetchNoteItems);
  }

  async readNoteCursor(shard: number): Promise<number | undefined> {
    checkShard(shard, this.dueShards);
    return this.cursors.get(shard);
  }

  async createNoteCursor(shard: number, atBucket: number): Promise<number> {
    checkShard(shard, this.dueShards);
    checkBucket('atBucket', atBucket);
    const at = this.cursors.get(shard) ?? atBucket;
    this.cursors.set(shard, at);
    return at;
  }

  noteShardOf(scheduleId: string): number {
    return shardOf(scheduleId, this.dueShards);
  }

  async moveNoteCursor(shard: number, toBucket: number): Promise<boolean> {
    checkShard(shard, this.dueShards);
    checkBucket('toBucket', toBucket);
    const at = this.cursors.get(shard);
    if (at !== undefined && at >= toBucket) return at === toBucket;
    this.cursors.set(shard, toBucket);
    return true;
  }

  findLiveNotes(input: FindLiveNotesInput): Promise<Map<string, DueNote>> {
    return findLiveNotesIn(input, this.dueShards, this.fetchNoteItems);
  }

  /** Puts a note item as given, valid or not (a test aid for corrupt entries; not part of the port). */
  putRawNoteItem(shard: number, bucket: number, name: string, entries: unknown, expiresAt: EpochMs): void {
    this.partition(shard, bucket).set(name, { entries: structuredClone(entries), expiresAt });
  }

  /** Deletes note items whose expiry has passed, as DynamoDB's TTL does (late). */
  deleteExpiredNotes(now: EpochMs): void {
    for (const [key, items] of this.noteItems) {
      for (const [name, item] of items) if (item.expiresAt <= now) items.delete(name);
      if (items.size === 0) this.noteItems.delete(key);
    }
  }

  private readonly fetchNoteItems: FetchNoteItems = async (shard, bucket, afterItem, limit) => {
    const items = this.noteItems.get(partitionKey(shard, bucket)) ?? new Map<string, StoredNoteItem>();
    const names = [...items.keys()].filter((name) => afterItem === undefined || name > afterItem).sort();
    const page = names.slice(0, limit);
    return {
      items: page.map((name) => ({ name, entries: structuredClone(items.get(name)?.entries) })),
      ...(names.length > limit && { lastItem: page.at(-1) }),
    };
  };

  private partition(shard: number, bucket: number): Map<string, StoredNoteItem> {
    const key = partitionKey(shard, bucket);
    let items = this.noteItems.get(key);
    if (!items) {
      items = new Map();
      this.noteItems.set(key, items);
    }
    return items;
  }
}

function partitionKey(shard: number, bucket: number): string {
  return `${shard}#${bucket}`;
}
