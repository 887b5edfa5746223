import type { Clock } from '../core/clock';

/** Where a command writes text: `process.stdout` in real use, a buffer in tests. */
export interface TextOutput {
  write(text: string): unknown;
}

/** Everything a command touches outside its arguments, injected so commands run in-process in tests. */
export interface CliIo {
  stdout: TextOutput;
  stderr: TextOutput;
  clock: Clock;
}
