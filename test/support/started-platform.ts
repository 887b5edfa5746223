import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { processTree } from './listening-sockets';

/** A local platform started as a user starts it, in a process group of its own (as a terminal's job). */
export interface StartedPlatform {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Resolves with the exit code (or signal) once the group's leader exits. */
  exited: Promise<number | string>;
  /** The processes of its tree now (the leader and its descendants). */
  processes(): number[];
  /** Calls the admin function through the Invoke API. */
  admin(request: Record<string, unknown>): Promise<{ ok: boolean; result?: Record<string, unknown> }>;
  /** Ctrl-C as a terminal sends it: SIGINT to every process of the group. */
  pressCtrlC(): void;
  /** Ends whatever is left (after a failed test). */
  kill(): void;
}

const READY_LINE = 'Press Ctrl-C to stop.';

/** Runs `command` (e.g. `npm start -- …`) detached and waits for the platform's banner. */
export async function startPlatformProcess(
  command: string,
  args: readonly string[],
  options: { cwd: string; port: number; readyWithinMs?: number },
): Promise<StartedPlatform> {
  const child = spawn(command, args, { cwd: options.cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  const exited = new Promise<number | string>((done) =>
    child.once('exit', (code, signal) => done(code ?? signal ?? 'unknown')),
  );
  const group = child.pid as number;
  const started: StartedPlatform = {
    child,
    output: () => printed,
    exited,
    processes: () => processTree(group).filter(running),
    async admin(request) {
      const response = await fetch(
        `http://127.0.0.1:${options.port}/2015-03-31/functions/sundial-admin/invocations`,
        { method: 'POST', body: JSON.stringify(request) },
      );
      return (await response.json()) as { ok: boolean; result?: Record<string, unknown> };
    },
    pressCtrlC: () => process.kill(-group, 'SIGINT'),
    kill() {
      for (const pid of processTree(group)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
    },
  };
  const until = Date.now() + (options.readyWithinMs ?? 120_000);
  while (!printed.includes(READY_LINE)) {
    if (Date.now() > until || child.exitCode !== null) {
      started.kill();
      throw new Error(`the platform did not start:\n${printed}`);
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  return started;
}

/** Running (a zombie waiting for its reaper has exited). */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}
