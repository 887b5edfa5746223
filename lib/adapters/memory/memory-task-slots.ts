import type { EpochMs } from '../../core/clock';
import { counterRepair, type TaskCounter } from '../../core/ports/counter-repair';
import type { TaskSlots } from '../../core/ports/waiting-line';

/**
 * The in-memory task counters: running slots (with the `seq` that counter repair compares), and per
 * task the limit of the last slot taken (as the DynamoDB counter item keeps it) and the pause flag.
 */
export class MemoryTaskSlots {
  private readonly counters = new Map<string, TaskCounter>();
  private readonly settings = new Map<string, { limit: number | null; paused: boolean }>();

  /** Takes a slot unless the task is paused or at `limit`; returns the running count when it cannot. */
  take(task: string, limit: number): { taken: true } | { taken: false; running: number } {
    const counter = this.counter(task);
    if (this.settings.get(task)?.paused === true || counter.running >= limit) {
      return { taken: false, running: counter.running };
    }
    Object.assign(counter, { running: counter.running + 1, seq: counter.seq + 1 });
    this.settingsOf(task).limit = limit;
    return { taken: true };
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
    };
  }

  private settingsOf(task: string): { limit: number | null; paused: boolean } {
    let settings = this.settings.get(task);
    if (!settings) {
      settings = { limit: null, paused: false };
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
