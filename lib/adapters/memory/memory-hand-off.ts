import {
  sameCopy,
  type WakeHeadsInput,
  type WakeTime,
  type WokenEntry,
  type WokenRelease,
  type WokenReleaseInput,
  wakeTime,
} from '../../core/ports/waiting-line';
import type { MemoryTaskSlots } from './memory-task-slots';
import type { MemoryWaitingLines } from './memory-waiting-lines';

/**
 * How the in-memory store moves entries and slots together (ADR 0009), as the DynamoDB store does in
 * one transaction: waking a line's heads with what they take, handing a slot that comes back to the
 * head, and giving a woken entry back.
 */
export class MemoryHandOff {
  constructor(
    private readonly lines: MemoryWaitingLines,
    private readonly slots: MemoryTaskSlots,
  ) {}

  wakeHeads(input: WakeHeadsInput): WokenEntry[] {
    const woken: WokenEntry[] = [];
    const at = wakeTime(input.now);
    for (let taken = 0; taken < input.count; ) {
      const head = this.lines.head(input.task);
      if (!head) break;
      const settled = this.lines.settleBehindWoken(input.task, head.position, at);
      if (settled === 'left') continue;
      if (settled) {
        woken.push(settled);
        continue;
      }
      if (input.take === 'slot' && !this.slots.takeForWoken(input.task, input.limit)) break;
      woken.push(this.lines.wake(input.task, head.position, at, input.take === 'slot') as WokenEntry);
      taken += 1;
    }
    return woken;
  }

  releaseWoken(input: WokenReleaseInput): WokenRelease {
    const entry = this.lines.wokenEntry(input.task, input.position);
    if (!entry || !sameCopy(entry.message, input.copy)) return { status: 'gone' };
    this.lines.removeWoken(input.task, input.position);
    if (!entry.withSlot) return { status: 'gone' };
    const woken = this.slotBack(input.task, wakeTime(input.now, input.carriedOn));
    return woken ? { status: 'handed', woken } : { status: 'released' };
  }

  /**
   * A slot comes back: it goes to the line's head (woken, returned) when the task may hand slots on,
   * else back to the counter (one already at 0 stays there). A head woken already leaves the line on the
   * way (`wake`). One step, as DynamoDB's `slotBack` is in effect: its return holds only while nobody
   * joined since it read the line.
   */
  slotBack(task: string, at: WakeTime): WokenEntry | undefined {
    if (this.slots.mayHandOn(task)) {
      for (let head = this.lines.head(task); head; head = this.lines.head(task)) {
        const woken = this.lines.wake(task, head.position, at, true);
        if (woken) return woken;
      }
    }
    this.slots.giveBack(task);
    return undefined;
  }
}
