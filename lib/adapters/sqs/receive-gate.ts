/** Loops that wait in a receive at once on a quiet queue (Lambda's event source starts with 5 pollers). */
const QUIET_RECEIVERS = 2;

/**
 * How many of an event source's loops may wait in a receive at once, grown and shrunk as Lambda's SQS
 * event source scales its pollers: one more while receives come back full, one fewer when one comes back
 * empty. The local SQS emulator answers every waiting receive when a message arrives, so loops that all
 * long-poll turn each arrival into as many receives, nearly all empty, on the cores the store and the
 * workers share; in AWS the pollers run on none of them. The other loops run their invocations, or wait
 * here for their turn to receive.
 */
export class ReceiveGate {
  private allowed: number;
  private receiving = 0;
  private readonly queued: Array<() => void> = [];
  private readonly min: number;

  /** For `loops` loops (0: an event source turned off) that receive up to `batchSize` messages at a time. */
  constructor(
    private readonly loops: number,
    private readonly batchSize: number,
  ) {
    if (!Number.isInteger(loops) || loops < 0)
      throw new Error(`receive gate: loops must be a whole number ≥ 0, got ${loops}`);
    this.min = Math.min(QUIET_RECEIVERS, loops);
    this.allowed = this.min;
  }

  /** Loops allowed to wait in a receive at once now. */
  get receivers(): number {
    return this.allowed;
  }

  /** Resolves when the caller may receive; it then calls `received` once, whatever came back. */
  async enter(): Promise<void> {
    if (this.receiving < this.allowed) {
      this.receiving += 1;
      return;
    }
    await new Promise<void>((resolve) => this.queued.push(resolve));
  }

  /** The caller's receive returned `count` messages (0 for an error): the gate scales and lets the next one in. */
  received(count: number): void {
    this.receiving -= 1;
    if (count >= this.batchSize) this.allowed = Math.min(this.loops, this.allowed + 1);
    else if (count === 0) this.allowed = Math.max(this.min, this.allowed - 1);
    this.admit();
  }

  /** Lets every queued loop in (at a stop, so that none waits for a receive that never comes). */
  open(): void {
    this.allowed = Number.POSITIVE_INFINITY;
    this.admit();
  }

  private admit(): void {
    while (this.receiving < this.allowed && this.queued.length > 0) {
      this.receiving += 1;
      this.queued.shift()?.();
    }
  }
}
