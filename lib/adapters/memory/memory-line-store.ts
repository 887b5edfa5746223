import type { EpochMs } from '../../core/clock';
import type { JobMessageBody } from '../../core/model/job-message';
import type { RateLimit } from '../../core/model/rate-limit';
import type {
  LineEntry,
  RateWakeBooking,
  TaskSlots,
  WaitingLineStore,
  WakeHeadsInput,
  WokenEntry,
  WokenPostponement,
  WokenRelease,
  WokenReleaseInput,
} from '../../core/ports/waiting-line';
import { MemoryHandOff } from './memory-hand-off';
import { MemoryTaskSlots } from './memory-task-slots';
import { MemoryWaitingLines } from './memory-waiting-lines';

/**
 * The waiting lines and task counters of the in-memory store (`WaitingLineStore`); the job store
 * (`MemoryJobStore`) builds on them, its claims and endings taking and handing slots through them.
 */
export class MemoryLineStore implements WaitingLineStore {
  protected readonly slots = new MemoryTaskSlots();
  protected readonly lines = new MemoryWaitingLines();
  protected readonly handOff = new MemoryHandOff(this.lines, this.slots);

  async joinLine(input: { message: JobMessageBody; now: EpochMs }): Promise<TaskSlots | undefined> {
    this.lines.join(input.message, input.now);
    return this.slots.slots(input.message.job.task);
  }

  async lineHead(task: string): Promise<LineEntry | undefined> {
    return this.lines.head(task);
  }

  async wakeHeads(input: WakeHeadsInput): Promise<WokenEntry[]> {
    return this.handOff.wakeHeads(input);
  }

  async releaseWoken(input: WokenReleaseInput): Promise<WokenRelease> {
    return this.handOff.releaseWoken(input);
  }

  async overdueWoken(task: string, now: EpochMs): Promise<WokenEntry[]> {
    return this.lines.overdueWoken(task, now);
  }

  async markWokenResent(
    entry: Pick<WokenEntry, 'task' | 'position' | 'wokenAt'>,
    now: EpochMs,
  ): Promise<boolean> {
    return this.lines.markResent(entry.task, entry.position, entry.wokenAt, now);
  }

  async postponeWoken(input: WokenPostponement): Promise<boolean> {
    return this.lines.postpone(input);
  }

  async isWaiting(task: string, position: string, createToken?: string): Promise<boolean> {
    return this.lines.isWaiting(task, position, createToken);
  }

  async waitingCount(task: string): Promise<number> {
    return this.lines.count(task);
  }

  async taskSlots(task: string): Promise<TaskSlots | undefined> {
    return this.slots.slots(task);
  }

  async setTaskPaused(task: string, paused: boolean): Promise<TaskSlots> {
    return this.slots.setPaused(task, paused);
  }

  async retakeRateStart(
    task: string,
    rate: RateLimit,
    now: EpochMs,
  ): Promise<{ taken: true } | { taken: false; nextStartAt?: EpochMs }> {
    const start = this.slots.take(task, { rate, now });
    if (start.taken) return start;
    return { taken: false, ...(start.nextStartAt !== undefined && { nextStartAt: start.nextStartAt }) };
  }

  async bookRateWake(booking: RateWakeBooking): Promise<boolean> {
    return this.slots.bookRateWake(booking);
  }

  async releaseRateWake(task: string, at: EpochMs): Promise<void> {
    this.slots.releaseRateWake(task, at);
  }

  async allTaskSlots(): Promise<TaskSlots[]> {
    return this.slots.all();
  }

  /** Overwrites a task's counter, as drift would: no slot change is recorded (a test aid; not part of the port). */
  setRunningCount(task: string, running: number): void {
    this.slots.setRunning(task, running);
  }
}
