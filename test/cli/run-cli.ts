import { run } from '../../lib/cli/main';
import { type Clock, systemClock } from '../../lib/core/clock';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  clock?: Clock;
  cwd?: string;
  /** Pretend stderr is a terminal (progress bars). */
  tty?: boolean;
}

/** Runs `sundial <args>` in-process and collects its output. */
export async function sundial(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text), isTTY: options.tty ?? false },
    clock: options.clock ?? systemClock,
    env: options.env ?? {},
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  return { code, stdout, stderr };
}
