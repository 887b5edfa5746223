import type { EpochMs } from '../../core/clock';
import type { JobMessageBody } from '../../core/model/job-message';
import { type LeaseLineHeadInput, type LineEntry, linePosition } from '../../core/ports/waiting-line';

interface StoredEntry {
  message: JobMessageBody;
  joinedAt: EpochMs;
  wakeOwner: string | null;
  wakeUntil: EpochMs | null;
}

/** The waiting lines of the in-memory store (same contract as the DynamoDB store's `WAIT#` items). */
export class MemoryWaitingLines {
  private readonly lines = new Map<string, Map<string, StoredEntry>>();

  join(message: JobMessageBody, now: EpochMs): void {
    const line = this.line(message.job.task);
    const position = linePosition(message);
    const existing = line.get(position);
    if (existing && existing.message.attempt > message.attempt) return;
    line.set(position, {
      message: structuredClone(message),
      joinedAt: now,
      wakeOwner: null,
      wakeUntil: null,
    });
  }

  leaseHead(input: LeaseLineHeadInput): LineEntry[] {
    const taken: LineEntry[] = [];
    let held = 0;
    for (const [position, entry] of this.ordered(input.task)) {
      if (taken.length + held >= input.count) break;
      if (entry.wakeUntil !== null && entry.wakeUntil >= input.now) {
        if (input.leased === 'count') held += 1;
        continue;
      }
      if (input.only !== undefined && position !== input.only) {
        held += 1;
        continue;
      }
      // A joiner's own turn takes its entry out of the line; a waker holds the entries it wakes.
      if (input.only !== undefined) this.line(input.task).delete(position);
      else Object.assign(entry, { wakeOwner: input.owner, wakeUntil: input.now + input.leaseMs });
      taken.push({
        task: input.task,
        position,
        message: structuredClone(entry.message),
        joinedAt: entry.joinedAt,
      });
    }
    return taken;
  }

  leave(task: string, position: string, owner: string): void {
    const line = this.lines.get(task);
    if (line?.get(position)?.wakeOwner === owner) line.delete(position);
  }

  has(task: string, position: string): boolean {
    return this.lines.get(task)?.has(position) ?? false;
  }

  count(task: string): number {
    return this.lines.get(task)?.size ?? 0;
  }

  private ordered(task: string): [string, StoredEntry][] {
    return [...this.line(task)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  private line(task: string): Map<string, StoredEntry> {
    let line = this.lines.get(task);
    if (!line) {
      line = new Map();
      this.lines.set(task, line);
    }
    return line;
  }
}
