import type { MemoryStore } from '../lib/adapters/memory/memory-store';
import { WOKEN_RESEND_MS, type WokenEntry } from '../lib/core/ports/waiting-line';
import type { SimQueue } from './queue';
import type { Simulation } from './scheduler';

/**
 * How long a slot may stand free while a job it may start waits, when no fault struck meanwhile: the
 * few store calls between a slot coming back and its hand-off (a joiner's wake after its join, an
 * ender's wake after a hand-off that found the head gone), each of which may come from the store's slow
 * tail (up to 3 s, about one call in a hundred), and still far under a tick's minute.
 */
const UNDISTURBED_MS = 15_000;
/**
 * After a fault cut such a step short (a crash, a refused call), the next worker or tick that touches
 * the task repairs it: at the latest the tick after next (a tick may crash too).
 */
const DISTURBED_MS = 3 * 60_000;
/** A woken job's message is claimed by then: one lost is sent again once overdue by the next toucher. */
const WOKEN_CLAIMED_MS = WOKEN_RESEND_MS + DISTURBED_MS;
/**
 * A woken entry's message is sent by then when no fault struck since it was woken (or its resend
 * taken): the send follows the wake at once, or the job claims at once its own turn (or its waker's
 * invocation carries it on and claims it). Under `WOKEN_RESEND_MS`, so a woken job nobody sends is
 * seen before the next toucher's resend hides it (a carried one is resent sooner: `CARRIED_RESEND_MS`).
 */
const WOKEN_SENT_MS = 8_000;

/** What a task's line is held to: its slot limit (Infinity: none), and its start interval (0: no rate limit). */
export interface LineTerms {
  limit: number;
  startIntervalMs: number;
}

/**
 * Checks the waiting line's liveness (ADR 0009) every simulated second, on the store and queue as they
 * are: a task with a slot free (by its counter, not paused, and for a rate-limited task once its next
 * start has come) never keeps a job waiting in its line past the bounds above; a woken job has its
 * message sent (when no fault struck since it was woken), and is claimed (or its entry given back)
 * within `WOKEN_CLAIMED_MS` of its wake-up or last resend.
 */
export class LineWatch {
  longestFreeMs = 0;
  /** Since when each task has had a slot free with a job waiting (as first sampled). */
  private readonly stretches = new Map<string, number>();
  private stopped = false;

  constructor(
    private readonly sim: Simulation,
    private readonly store: MemoryStore,
    private readonly queue: Pick<SimQueue, 'lastSentAt'>,
    private readonly lines: ReadonlyMap<string, LineTerms>,
    private readonly violate: (problem: string) => void,
  ) {}

  start(): void {
    this.sim.at(this.sim.time + 1_000, () => void this.sample());
  }

  stop(): void {
    this.stopped = true;
  }

  private async sample(): Promise<void> {
    if (this.stopped) return;
    const now = this.sim.time;
    for (const [task, terms] of this.lines) {
      await this.checkFree(task, terms, now);
      const woken = (await this.wokenEntries(task)).filter((entry) => entry.wokenAt <= now - WOKEN_SENT_MS);
      if (woken.length === 0) continue;
      this.checkWokenSent(task, woken, now);
      for (const entry of woken) {
        if (entry.wokenAt >= now - WOKEN_CLAIMED_MS) continue;
        this.violate(
          `${entry.message.job.id} (${task}) woken at ${entry.wokenAt} was not claimed within ${WOKEN_CLAIMED_MS} ms`,
        );
      }
    }
    this.start();
  }

  private async checkFree(task: string, terms: LineTerms, now: number): Promise<void> {
    const { limit, startIntervalMs } = terms;
    const slots = await this.store.taskSlots(task);
    const free =
      slots !== undefined &&
      !slots.paused &&
      slots.running < limit &&
      (slots.nextStartAt === undefined || slots.nextStartAt <= now) &&
      !(startIntervalMs > 0 && (await this.startSpokenFor(task)));
    const head = free ? await this.store.lineHead(task) : undefined;
    if (!head) {
      this.stretches.delete(task);
      return;
    }
    const since = this.stretches.get(task) ?? now;
    this.stretches.set(task, since);
    const freeMs = now - since;
    this.longestFreeMs = Math.max(this.longestFreeMs, freeMs);
    // A fault shortly before the stretch was first seen may have begun it (sampling is once a second),
    // or a start interval before it (a rate-limited line's wake-up for its next start, cut short).
    const disturbed = this.sim.lastDisturbanceAt >= since - UNDISTURBED_MS - startIntervalMs;
    const bound = disturbed ? DISTURBED_MS : UNDISTURBED_MS;
    if (freeMs > bound) {
      this.violate(
        `a slot of '${task}' stood free for ${freeMs} ms (bound ${bound} ms) while ${head.message.job.id} waited (${slots?.running} of ${limit} taken)`,
      );
      this.stretches.delete(task);
    }
  }

  /** A job woken without a slot (for a rate-limited task's next start) is on its way to take the start. */
  private async startSpokenFor(task: string): Promise<boolean> {
    return (await this.wokenEntries(task)).some((entry) => !entry.withSlot);
  }

  /** All the task's woken entries, overdue or not. */
  private wokenEntries(task: string): Promise<WokenEntry[]> {
    return this.store.overdueWoken(task, Number.POSITIVE_INFINITY);
  }

  /**
   * Of the entries woken `WOKEN_SENT_MS` ago or more, those with no message sent since their wake-up (or
   * resend), though no fault struck since.
   */
  private checkWokenSent(task: string, woken: readonly WokenEntry[], now: number): void {
    const undisturbed = woken.filter((entry) => this.sim.lastDisturbanceAt < entry.wokenAt);
    if (undisturbed.length === 0) return;
    const sent = this.queue.lastSentAt();
    for (const entry of undisturbed) {
      const { id } = entry.message.job;
      if ((sent.get(id) ?? Number.NEGATIVE_INFINITY) >= entry.wokenAt) continue;
      this.violate(
        `${id} (${task}) woken at ${entry.wokenAt} has had no message sent for ${now - entry.wokenAt} ms, though no fault struck since`,
      );
    }
  }
}
