import type { EpochMs } from '../../core/clock';
import { deepFreeze } from '../../core/deep-freeze';
import type { JobMessageBody } from '../../core/model/job-message';
import {
  copyOf,
  type LineEntry,
  lineKeeps,
  linePosition,
  sameCopy,
  sameCreation,
  type WakeTime,
  type WokenEntry,
  type WokenPostponement,
  wokenOverdueAt,
} from '../../core/ports/waiting-line';

interface StoredEntry {
  message: JobMessageBody;
  joinedAt: EpochMs;
}

interface StoredWoken extends StoredEntry {
  wokenAt: EpochMs;
  overdueAt: EpochMs;
  withSlot: boolean;
}

/**
 * The waiting lines of the in-memory store (same contract as the DynamoDB store's `WAIT#` and `WOKEN#`
 * items): per task, the jobs waiting in line order and the woken ones whose messages are on their way.
 * The slot a woken entry holds is counted by the task's counter (`MemoryTaskSlots`); moving entries and
 * slots together is the store's (`MemoryJobStore`).
 */
export class MemoryWaitingLines {
  private readonly waiting = new Map<string, Map<string, StoredEntry>>();
  private readonly woken = new Map<string, Map<string, StoredWoken>>();

  join(message: JobMessageBody, now: EpochMs): void {
    const line = this.lineOf(this.waiting, message.job.task);
    const position = linePosition(message);
    const existing = line.get(position);
    if (existing && lineKeeps(message, existing.message) === 'held') return;
    line.set(position, { message: frozenCopy(message), joinedAt: now });
  }

  head(task: string): LineEntry | undefined {
    const line = this.waiting.get(task);
    let first: string | undefined;
    for (const position of line?.keys() ?? []) if (first === undefined || position < first) first = position;
    return first === undefined ? undefined : entryOf(task, first, line?.get(first) as StoredEntry);
  }

  isWaiting(task: string, position: string, createToken?: string): boolean {
    const entry = this.waiting.get(task)?.get(position) ?? this.woken.get(task)?.get(position);
    return entry !== undefined && sameCreation(entry.message.job.createToken, createToken);
  }

  /**
   * Moves a waiting entry to the woken ones; undefined when it no longer waits, or when the job is woken
   * already (`settleBehindWoken`, with a later copy moved in overdue at once, for the caller to send
   * with the task's overdue entries).
   */
  wake(task: string, position: string, at: WakeTime, withSlot: boolean): WokenEntry | undefined {
    const entry = this.waiting.get(task)?.get(position);
    if (!entry || this.settleBehindWoken(task, position, { now: at.now, overdueAt: at.now }))
      return undefined;
    this.waiting.get(task)?.delete(position);
    const woken: StoredWoken = { ...entry, wokenAt: at.now, overdueAt: at.overdueAt, withSlot };
    this.lineOf(this.woken, task).set(position, woken);
    return wokenOf(task, position, woken);
  }

  /**
   * A waiting entry whose job is woken already leaves the line: a second delivery of the woken copy (or
   * an older one), nothing more to do (`left`); a later copy (a retry that joined while the earlier
   * attempt's wake-up travelled, the earlier one run by a plain delivery; or a newer revision's copy of
   * a fire, whose older copy's check cancels in its favour) goes into the woken entry in its place,
   * with its slot, woken at `at` (returned, `movedIn`: its message is the caller's to send). The older
   * copy's delivery then finds its entry gone (`sameCopy`). Undefined when the job is not woken.
   */
  settleBehindWoken(task: string, position: string, at: WakeTime): 'left' | WokenEntry | undefined {
    const woken = this.woken.get(task)?.get(position);
    const entry = this.waiting.get(task)?.get(position);
    if (!woken || !entry) return undefined;
    this.waiting.get(task)?.delete(position);
    if (sameCopy(entry.message, woken.message) || lineKeeps(entry.message, woken.message) === 'held') {
      return 'left';
    }
    Object.assign(woken, { ...entry, wokenAt: at.now, overdueAt: at.overdueAt });
    return { ...wokenOf(task, position, woken), movedIn: true };
  }

  wokenEntry(task: string, position: string): WokenEntry | undefined {
    const entry = this.woken.get(task)?.get(position);
    return entry && wokenOf(task, position, entry);
  }

  removeWoken(task: string, position: string): void {
    this.woken.get(task)?.delete(position);
  }

  overdueWoken(task: string, now: EpochMs): WokenEntry[] {
    return [...(this.woken.get(task) ?? [])]
      .filter(([, entry]) => entry.overdueAt <= now)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([position, entry]) => wokenOf(task, position, entry));
  }

  /**
   * Moves a woken entry's `wokenAt` from `wokenAt` to `now` (and its `overdueAt` on); false when it is
   * gone or was moved since, unless to `now`: by this same call, made again after its answer was lost.
   */
  markResent(task: string, position: string, wokenAt: EpochMs, now: EpochMs): boolean {
    const entry = this.woken.get(task)?.get(position);
    if (entry?.wokenAt !== wokenAt) return entry?.wokenAt === now;
    entry.wokenAt = now;
    entry.overdueAt = wokenOverdueAt(now);
    return true;
  }

  /** See `WaitingLineStore.postponeWoken`. */
  postpone({ task, position, copy, now, until }: WokenPostponement): boolean {
    const entry = this.woken.get(task)?.get(position);
    if (!entry || !sameCopy(copyOf(entry.message), copy)) return false;
    entry.wokenAt = now;
    entry.overdueAt = wokenOverdueAt(until);
    return true;
  }

  /** Woken entries holding a slot, per task (what the counter counts besides running jobs). */
  wokenSlots(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const [task, line] of this.woken) {
      const slots = [...line.values()].filter((entry) => entry.withSlot).length;
      if (slots > 0) counts.set(task, slots);
    }
    return counts;
  }

  count(task: string): number {
    return (this.waiting.get(task)?.size ?? 0) + (this.woken.get(task)?.size ?? 0);
  }

  private lineOf<T>(lines: Map<string, Map<string, T>>, task: string): Map<string, T> {
    let line = lines.get(task);
    if (!line) {
      line = new Map();
      lines.set(task, line);
    }
    return line;
  }
}

function entryOf(task: string, position: string, entry: StoredEntry): LineEntry {
  return { task, position, message: entry.message, joinedAt: entry.joinedAt };
}

/**
 * A stored message is copied once, when it joins, and frozen: every reader gets that copy, which no
 * one can change (a write to it throws), as no one can change a DynamoDB item by changing what it read.
 */
function frozenCopy<T>(value: T): T {
  return deepFreeze(structuredClone(value));
}

function wokenOf(task: string, position: string, entry: StoredWoken): WokenEntry {
  return {
    ...entryOf(task, position, entry),
    wokenAt: entry.wokenAt,
    overdueAt: entry.overdueAt,
    withSlot: entry.withSlot,
  };
}
