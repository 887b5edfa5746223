import type { Clock } from '../core/clock';

/** Where a command writes text: `process.stdout` in real use, a buffer in tests. */
export interface TextOutput {
  write(text: string): unknown;
  /** True on a terminal: progress bars are drawn only there. */
  isTTY?: boolean;
}

/** Everything a command touches outside its arguments, injected so commands run in-process in tests. */
export interface CliIo {
  stdout: TextOutput;
  stderr: TextOutput;
  clock: Clock;
  /** Environment variables (`SUNDIAL_PORT`, `SUNDIAL_ADMIN_FUNCTION`, AWS_*). @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** Aborted when the process is asked to stop (Ctrl-C): long-running commands such as `dashboard` end then. */
  shutdown?: AbortSignal;
  /** Relative file arguments (`sundial import schedules.yaml`) are read from here. @default process.cwd() */
  cwd?: string;
}

export function envOf(io: CliIo): Readonly<Record<string, string | undefined>> {
  return io.env ?? process.env;
}
