import type { TextOutput } from '../io';

const BAR_WIDTH = 30;

/** A progress bar redrawn in place on a terminal; silent when the output is not one (pipes, CI logs, tests). */
export class ProgressBar {
  private done = 0;
  private readonly enabled: boolean;

  constructor(
    private readonly output: TextOutput,
    private readonly label: string,
    private readonly total: number,
  ) {
    this.enabled = output.isTTY === true && total > 0;
    this.draw();
  }

  advance(count = 1): void {
    this.done = Math.min(this.total, this.done + count);
    this.draw();
  }

  /** Erases the bar, so the report that follows starts on a clean line. */
  finish(): void {
    if (this.enabled) this.output.write('\r\x1b[K');
  }

  private draw(): void {
    if (!this.enabled) return;
    this.output.write(`\r${renderProgress(this.label, this.done, this.total)}`);
  }
}

/**
 * One frame of the bar.
 *
 * @example
 * renderProgress('Importing', 12, 40); // 'Importing [#########.....................] 12/40'
 */
export function renderProgress(label: string, done: number, total: number): string {
  const filled = total === 0 ? BAR_WIDTH : Math.round((done / total) * BAR_WIDTH);
  return `${label} [${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${done}/${total}`;
}
