import type { MemoryStore } from '../lib/adapters/memory/memory-store';
import { WOKEN_RESEND_MS } from '../lib/core/ports/waiting-line';
import type { Simulation } from './scheduler';

/**
 * How long a slot may stand free while a job it may start waits, when no fault struck meanwhile: the
 * few store calls between a slot coming back and its hand-off (a joiner's wake after its join, an
 * ender's wake after a hand-off that found the head gone), far under one message's travel.
 */
const UNDISTURBED_MS = 5_000;
/**
 * After a fault cut such a step short (a crash, a refused call), the next worker or tick that touches
 * the task repairs it: at the latest the tick after next (a tick may crash too).
 */
const DISTURBED_MS = 3 * 60_000;
/** A woken job's message is claimed by then: one lost is sent again once overdue by the next toucher. */
const WOKEN_CLAIMED_MS = WOKEN_RESEND_MS + DISTURBED_MS;

/** A task the watch checks: its slot limit (infinite for a rate-only task), and how far ahead its line is woken. */
export interface WatchedTask {
  limit: number;
  /** A rate-limited task's start interval: the job for its next start is woken up to that much ahead. */
  wakesAheadMs: number;
}

/**
 * Checks the waiting line's liveness (ADR 0009) every simulated second, on the store as it is: a task
 * with a slot free (by its counter, not paused, and for a rate-limited task once its next start has
 * come and no job woken for it is on its way; `limits` holds a rate-only task as unlimited) never keeps
 * a job waiting in its line past the bounds above, and a woken job is claimed (or its
 * entry given back) within `WOKEN_CLAIMED_MS` of its wake-up or last resend.
 */
export class LineWatch {
  longestFreeMs = 0;
  /** Since when each task has had a slot free with a job waiting (as first sampled). */
  private readonly stretches = new Map<string, number>();
  private stopped = false;

  constructor(
    private readonly sim: Simulation,
    private readonly store: MemoryStore,
    private readonly limits: ReadonlyMap<string, WatchedTask>,
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
    for (const [task, watched] of this.limits) {
      await this.checkFree(task, watched, now);
      const overdue = await this.store.staleWoken(task, now - WOKEN_CLAIMED_MS);
      for (const entry of overdue) {
        this.violate(
          `${entry.message.job.id} (${task}) woken at ${entry.wokenAt} was not claimed within ${WOKEN_CLAIMED_MS} ms`,
        );
      }
    }
    this.start();
  }

  private async checkFree(task: string, { limit, wakesAheadMs }: WatchedTask, now: number): Promise<void> {
    const slots = await this.store.taskSlots(task);
    const head = await this.store.lineHead(task);
    // A rate-limited task's start is on its way while a job woken for it (without a slot) travels.
    const startOnItsWay =
      slots?.rateLimit !== undefined &&
      (await this.store.staleWoken(task, now + 1)).some((entry) => !entry.withSlot);
    const free =
      slots !== undefined &&
      !slots.paused &&
      slots.running < limit &&
      (slots.nextStartAt === undefined || slots.nextStartAt <= now) &&
      !startOnItsWay;
    if (!free || !head) {
      this.stretches.delete(task);
      return;
    }
    const since = this.stretches.get(task) ?? now;
    this.stretches.set(task, since);
    const freeMs = now - since;
    this.longestFreeMs = Math.max(this.longestFreeMs, freeMs);
    // A fault shortly before the stretch was first seen may have begun it (sampling is once a second;
    // a rate-limited task's next start is woken for up to one start interval ahead).
    const disturbed = this.sim.lastDisturbanceAt >= since - UNDISTURBED_MS - wakesAheadMs;
    const bound = disturbed ? DISTURBED_MS : UNDISTURBED_MS;
    if (freeMs > bound) {
      this.violate(
        `a slot of '${task}' stood free for ${freeMs} ms (bound ${bound} ms) while ${head.message.job.id} waited (${slots?.running} of ${limit} taken)`,
      );
      this.stretches.delete(task);
    }
  }
}
