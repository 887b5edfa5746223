import { createHash } from 'node:crypto';
import type { EpochMs } from '../../core/clock';
import type { Schedule, ScheduleDefinition } from '../../core/model/schedule';
import { closingNote } from '../../core/planning/closing-notes';
import {
  bucketOf,
  DEFAULT_NOTE_GRID,
  firstOpenBucket,
  naturalBucket,
  scheduleGrid,
} from '../../core/planning/note-chunks';
import { NOTE_WRITE_DEADLINE_MS } from '../../core/ports/due-notes';
import type { ChainStart, SchedulePosition } from '../../core/ports/schedule-store';
import { compileTrigger } from '../../core/triggers';
import type { DispatchDeps, DispatchLogger } from './dispatch-deps';
import { dispatchNotePage } from './note-page';
import { NoteRun } from './note-run';

/** A chain an admin call starts: what its write carries, and whether the call sends its first fires. */
export interface PlannedChain {
  start: ChainStart;
  /** Its first note could not go in its natural bucket: the call reads it at once (`continueAfterWrite`). */
  sendsFirstFires: boolean;
  /** Names the call's writes of this chain (its first note is `<owner>.0`). */
  owner: string;
}

/** What the admin call's own start of a chain sent (its first fires, when they were due too soon). */
export interface ChainStartOutcome {
  /** Jobs sent for the first fires. */
  jobsSent: number;
  /** Set when the chain ended with those fires (its trigger, or its runs, had none after them). */
  finished?: Schedule;
}

/** Hex characters of a chain token: 48 bits, so two chains of one schedule never share one. */
const TOKEN_CHARACTERS = 12;

/**
 * Starts schedules' note chains for the admin API (ADR 0008): every write that moves a schedule's fire
 * times (add, replace, a new trigger, resume, a restart past `max_runs`) writes a new chain's first note
 * in the same atomic write as the item, so an active schedule always has a note that moves it on, and
 * nothing else does. One per admin API instance: it remembers the shards whose note cursor it has made
 * sure of.
 */
export class ChainStarter {
  /** The shards whose cursor this instance made sure of, and where it stood then. */
  private readonly cursors = new Map<number, number>();
  private starts = 0;

  constructor(
    private readonly deps: DispatchDeps,
    /** Unique ids (the runtime's `newId`): each chain's token is made from one. */
    private readonly newId: () => string,
  ) {}

  /**
   * The chain to write with a schedule that is active from `position`, by the call `requestId`. Its first
   * note goes in its natural bucket, or in the first bucket a note written now may be read in when that
   * is later (its first fires are then sent by `continueAfterWrite`). A schedule finished at `position`
   * gets a chain of its closing note alone (ADR 0011) when it is removed after its last fire; undefined
   * when it has nothing to wait for (kept, or it never fired). Makes sure the note's shard has a cursor
   * first: a reader starting a cursor after the note would never read it.
   */
  async plan(
    schedule: Pick<ScheduleDefinition, 'id' | 'trigger' | 'keepFinished'>,
    position: SchedulePosition,
    requestId: string,
  ): Promise<PlannedChain | undefined> {
    const { nextFireAt, lastFireAt } = position;
    if (nextFireAt === null && (lastFireAt === null || schedule.keepFinished)) return undefined;
    const scheduleId = schedule.id;
    const { scheduleStore, clock } = this.deps;
    const shard = scheduleStore.noteShardOf(scheduleId);
    if (!this.cursors.has(shard)) {
      this.cursors.set(
        shard,
        await scheduleStore.createNoteCursor(shard, bucketOf(DEFAULT_NOTE_GRID, clock.now())),
      );
    }
    const now = clock.now();
    const chain = this.newChainToken();
    this.starts += 1;
    const owner = `${writerPrefix(requestId)}.c${this.starts}`;
    const identity = { scheduleId, chain, runs: position.runs };
    if (nextFireAt === null) {
      const note = closingNote(DEFAULT_NOTE_GRID, { ...identity, lastFireAt: lastFireAt as EpochMs }, now);
      return { start: { chain, note, writer: `${owner}.0`, now }, sendsFirstFires: false, owner };
    }
    const natural = naturalBucket(
      scheduleGrid(DEFAULT_NOTE_GRID, scheduleId),
      compileTrigger(schedule.trigger),
      nextFireAt,
    );
    const open = firstOpenBucket(DEFAULT_NOTE_GRID, now);
    return {
      start: {
        chain,
        note: { bucket: Math.max(natural, open), entry: { ...identity, nextFireAt, lastFireAt } },
        writer: `${owner}.0`,
        now,
      },
      sendsFirstFires: natural < open,
      owner,
    };
  }

  /**
   * After the write that started the chain: when its first note could not be placed in its natural
   * bucket (its first fires come too soon for a reader of that note), reads the note at once as a late
   * reader would (`dispatchNotePage`: its first fires sent, the note after them written, or the schedule
   * finished first when they are its last), then removes it. Should anything fail, the note stays and
   * the tick reads it: the fires already sent are sent again under the same ids, dropped at claim. A
   * write that took longer than the placement margin writes its note again (it may have landed after
   * its bucket was read).
   */
  async continueAfterWrite(planned: PlannedChain, logger: DispatchLogger): Promise<ChainStartOutcome> {
    const { deps } = this;
    const { start } = planned;
    const late = deps.clock.now() - start.now > NOTE_WRITE_DEADLINE_MS;
    const shard = deps.scheduleStore.noteShardOf(start.note.entry.scheduleId);
    const run = new NoteRun(planned.owner, [shard]);
    const cursor = this.cursors.get(shard);
    if (cursor !== undefined) run.cursors.set(shard, cursor);
    if (late) {
      const { error } = await run.write(deps.scheduleStore, [start.note], deps.clock);
      if (error !== undefined) {
        logger.warn('the first note of a chain, written late, could not be written again', { error });
      }
    }
    if (!planned.sendsFirstFires) return { jobsSent: 0 };
    const page = await dispatchNotePage(deps, run, [start.note], new Map(), { concurrency: 1, logger });
    const [summary] = page.summaries;
    if (page.heldAt === undefined && !late) {
      await deps.scheduleStore.removeDueNote(start.writer, start.note).catch((error: unknown) => {
        logger.warn('the first note of a chain was not removed; the tick sends its fires again', { error });
      });
    }
    return {
      jobsSent: summary?.jobsSent ?? 0,
      ...(summary?.finished && { finished: summary.finished }),
    };
  }

  private newChainToken(): string {
    return createHash('sha256').update(this.newId()).digest('hex').slice(0, TOKEN_CHARACTERS);
  }
}

/** Writer names of an admin call: letters, digits and `. _ : -`, at most 100 characters with their suffix. */
function writerPrefix(requestId: string): string {
  return `admin.${requestId.replace(/[^A-Za-z0-9._:-]/g, '_').slice(0, 64)}`;
}
