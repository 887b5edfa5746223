import type { EpochMs } from '../../core/clock';
import { nextStartAfter, type RateLimit } from '../../core/model/rate-limit';
import { counterRepair, type TaskCounter } from '../../core/ports/counter-repair';
import { type RateWakeBooking, rateWakeStaleBefore, type TaskSlots } from '../../core/ports/waiting-line';

interface Settings {
  limit: number | null;
  paused: boolean;
  rateLimit: RateLimit | null;
  nextStartAt: EpochMs | null;
  rateWakeAt: EpochMs | null;
  /** The token of the booking for `rateWakeAt`. */
  rateWakeBy: string | null;
  rateWakeBookedAt: EpochMs | null;
}

/**
 * The in-memory task counters: running slots (with the `seq` that counter repair compares), and per
 * task the limit of the last slot taken (as the DynamoDB counter item keeps it), the pause flag and the
 * rate limit's next start time.
 */
export class MemoryTaskSlots {
  private readonly counters = new Map<string, TaskCounter>();
  private readonly settings = new Map<string, Settings>();

  /**
   * Lets one job start unless the task is paused, at `limit` or (with a `rate`) before its next start
   * time, as the DynamoDB store's start gate does; says why not when it cannot.
   */
  take(
    task: string,
    gate: { limit?: number; rate?: RateLimit; now: EpochMs },
  ): { taken: true } | { taken: false; running: number; nextStartAt?: EpochMs } {
    const counter = this.counter(task);
    const settings = this.settingsOf(task);
    const full = gate.limit !== undefined && counter.running >= gate.limit;
    if (settings.paused || full) return { taken: false, running: counter.running };
    if (gate.rate && settings.nextStartAt !== null && settings.nextStartAt > gate.now) {
      return { taken: false, running: counter.running, nextStartAt: settings.nextStartAt };
    }
    if (gate.limit !== undefined) {
      Object.assign(counter, { running: counter.running + 1, seq: counter.seq + 1 });
      settings.limit = gate.limit;
    }
    if (gate.rate) {
      Object.assign(settings, {
        rateLimit: { ...gate.rate },
        nextStartAt: nextStartAfter(gate.rate, gate.now),
      });
    }
    return { taken: true };
  }

  /** See `WaitingLineStore.bookRateWake`: refused, a booking is still its caller's when it is the same call's. */
  bookRateWake({ task, at, token, now }: RateWakeBooking): boolean {
    const settings = this.settings.get(task);
    if (!settings) return false;
    const stale = settings.rateWakeBookedAt !== null && settings.rateWakeBookedAt < rateWakeStaleBefore(now);
    if (settings.rateWakeAt !== null && settings.rateWakeAt >= at && !stale) {
      return settings.rateWakeBy === token && settings.rateWakeAt === at;
    }
    Object.assign(settings, { rateWakeAt: at, rateWakeBy: token, rateWakeBookedAt: now });
    return true;
  }

  /** See `WaitingLineStore.releaseRateWake`. */
  releaseRateWake(task: string, at: EpochMs): void {
    const settings = this.settings.get(task);
    if (settings?.rateWakeAt === at) {
      Object.assign(settings, { rateWakeAt: null, rateWakeBy: null, rateWakeBookedAt: null });
    }
  }

  /**
   * Takes a free slot for a job woken from the line: only while the task is not paused and below
   * `limit` (the caller's, as deployed), which the counter keeps as a claim's.
   */
  takeForWoken(task: string, limit: number): boolean {
    const counter = this.counter(task);
    const settings = this.settingsOf(task);
    if (settings.paused || counter.running >= limit) return false;
    Object.assign(counter, { running: counter.running + 1, seq: counter.seq + 1 });
    settings.limit = limit;
    return true;
  }

  /**
   * Whether a slot coming back may go straight to a waiting job: not while the task is paused, nor when
   * its limit was lowered under the slots taken (the slot must then go back).
   */
  mayHandOn(task: string): boolean {
    const settings = this.settings.get(task);
    const running = this.counters.get(task)?.running ?? 0;
    return !settings?.paused && (settings?.limit == null || running <= settings.limit);
  }

  /** Gives a slot back (a counter already at 0 stays there). */
  giveBack(task: string): void {
    const counter = this.counter(task);
    Object.assign(counter, {
      running: counter.running > 0 ? counter.running - 1 : counter.running,
      seq: counter.seq + 1,
    });
  }

  runningCounts(): Map<string, number> {
    return new Map([...this.counters].map(([task, counter]) => [task, counter.running]));
  }

  /** Corrects the counters towards `actual` (slot holders per task) as the counter-repair rules allow. */
  repair(actual: ReadonlyMap<string, number>, now: EpochMs): Map<string, { was: number; now: number }> {
    const corrections = new Map<string, { was: number; now: number }>();
    for (const task of new Set([...this.counters.keys(), ...actual.keys()])) {
      const counter = this.counter(task);
      const repair = counterRepair(counter, actual.get(task) ?? 0, now);
      if (repair.action === 'observe') counter.observed = repair.observation;
      if (repair.action !== 'set') continue;
      corrections.set(task, { was: counter.running, now: repair.running });
      counter.running = repair.running;
    }
    return corrections;
  }

  slots(task: string): TaskSlots | undefined {
    return this.counters.has(task) || this.settings.has(task) ? this.slotsOf(task) : undefined;
  }

  setPaused(task: string, paused: boolean): TaskSlots {
    this.settingsOf(task).paused = paused;
    this.counter(task);
    return this.slotsOf(task);
  }

  all(): TaskSlots[] {
    const tasks = new Set([...this.counters.keys(), ...this.settings.keys()]);
    return [...tasks].map((task) => this.slotsOf(task));
  }

  /** Overwrites a task's counter, as drift would: no slot change is recorded (a test aid). */
  setRunning(task: string, running: number): void {
    this.counter(task).running = running;
  }

  private slotsOf(task: string): TaskSlots {
    const settings = this.settings.get(task);
    return {
      task,
      running: this.counters.get(task)?.running ?? 0,
      limit: settings?.limit ?? null,
      paused: settings?.paused ?? false,
      ...(settings?.rateLimit && { rateLimit: { ...settings.rateLimit } }),
      ...(settings && settings.nextStartAt !== null && { nextStartAt: settings.nextStartAt }),
    };
  }

  private settingsOf(task: string): Settings {
    let settings = this.settings.get(task);
    if (!settings) {
      settings = {
        limit: null,
        paused: false,
        rateLimit: null,
        nextStartAt: null,
        rateWakeAt: null,
        rateWakeBy: null,
        rateWakeBookedAt: null,
      };
      this.settings.set(task, settings);
    }
    return settings;
  }

  private counter(task: string): TaskCounter {
    let counter = this.counters.get(task);
    if (!counter) {
      counter = { running: 0, seq: 0 };
      this.counters.set(task, counter);
    }
    return counter;
  }
}
