import { Worker } from 'node:worker_threads';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { LocalRuntimeSettings } from './local-runtime';

/** The worker function's name in the local Lambda contexts (and log lines). */
export const LOCAL_WORKER_FUNCTION = 'sundial-worker';

/** What a sandbox's thread builds its worker from (sent to it once, at its start). */
export interface SandboxInit {
  functionsDir: string;
  settings: LocalRuntimeSettings;
}

/** The platform's message to a sandbox's thread: run one invocation until `deadline` (epoch ms). */
export interface SandboxInvocation {
  event: SQSEvent;
  deadline: number;
}

/** A sandbox's messages to the platform. */
export type SandboxReport =
  | { type: 'ready' }
  | { type: 'log'; line: string }
  /** A handler's deadline passed before it settled (`WorkerHandlerOptions.onHandlerDeadline`). */
  | { type: 'deadline'; jobId: string }
  | { type: 'response'; response: SQSBatchResponse }
  | { type: 'invocation_error'; message: string };

/** The sandbox ended (or never started) before its invocation answered: the batch failed as a whole. */
export class SandboxEndedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxEndedError';
  }
}

/**
 * One worker sandbox, as Lambda keeps one per concurrent invocation: a worker thread that loads the
 * tasks and the worker handler once, then runs one invocation at a time. The worker ends it as it ends a
 * Lambda sandbox (a handler still running at its invocation's end: `exitSandbox` exits the thread), and
 * the platform stops it at the invocation's timeout, as Lambda does, whatever runs in it.
 */
export interface WorkerSandbox {
  /** Resolves once the tasks and the worker are loaded; rejects (the sandbox has ended) if they cannot be. */
  readonly ready: Promise<void>;
  /** It may take another invocation: it still runs, and none of its handlers outlived a deadline. */
  readonly reusable: boolean;
  /**
   * Runs one invocation with `timeoutMs` of Lambda time; rejects with {@link SandboxEndedError} when the
   * sandbox ends first. `onHandlerDeadline` is told when a handler's deadline passes before it settled.
   */
  invoke(
    event: SQSEvent,
    timeoutMs: number,
    onHandlerDeadline: (jobId: string) => void,
  ): Promise<SQSBatchResponse>;
  /** Stops the thread, whatever runs in it. */
  end(): Promise<void>;
}

/** The thread's entry: registers tsx (as `npm start` runs TypeScript) and loads worker-sandbox-main.ts. */
const THREAD_ENTRY = new URL('./worker-sandbox-thread.mjs', import.meta.url);

interface Pending {
  resolve(response: SQSBatchResponse): void;
  reject(error: Error): void;
  onHandlerDeadline(jobId: string): void;
  timer: NodeJS.Timeout;
  timeoutMs: number;
}

export function startWorkerSandbox(init: SandboxInit, log: (line: string) => void): WorkerSandbox {
  // Without the platform's own loader flags: the entry registers tsx itself, in tests as in `npm start`.
  const thread = new Worker(THREAD_ENTRY, { workerData: init, execArgv: [] });
  let ended = false;
  let outlived = false;
  let timedOut = false;
  let stopped = false;
  let crash: string | undefined;
  let pending: Pending | undefined;
  let markReady: () => void = () => {};
  let failToStart: (error: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failToStart = reject;
  });
  ready.catch(() => {});

  thread.on('message', (report: SandboxReport) => {
    if (report.type === 'ready') markReady();
    else if (report.type === 'log') log(report.line);
    else if (report.type === 'deadline') {
      outlived = true;
      pending?.onHandlerDeadline(report.jobId);
    } else if (pending) {
      const answered = pending;
      pending = undefined;
      clearTimeout(answered.timer);
      if (report.type === 'response') answered.resolve(report.response);
      else answered.reject(new Error(`the worker failed the invocation: ${report.message}`));
    }
  });
  thread.on('error', (error) => {
    crash = error instanceof Error ? error.message : String(error);
  });
  thread.on('exit', (code) => {
    ended = true;
    failToStart(new SandboxEndedError(`worker sandbox could not start: ${crash ?? `exit code ${code}`}`));
    if (!pending) return;
    const cut = pending;
    pending = undefined;
    clearTimeout(cut.timer);
    if (stopped) {
      cut.reject(new SandboxEndedError('the platform stopped the sandbox'));
      return;
    }
    const why = timedOut
      ? `the invocation timed out after ${cut.timeoutMs} ms and its sandbox was stopped`
      : crash
        ? `its sandbox crashed: ${crash}`
        : 'the worker ended its sandbox (a handler that ignored its abort signal was still running)';
    log(
      `worker sandbox ended: ${why}; the messages of its batch come back after the queue's visibility timeout`,
    );
    cut.reject(new SandboxEndedError(why));
  });

  return {
    ready,
    get reusable() {
      return !ended && !outlived;
    },
    invoke(event, timeoutMs, onHandlerDeadline) {
      if (ended) return Promise.reject(new SandboxEndedError('the sandbox has ended'));
      if (pending) return Promise.reject(new Error('a sandbox runs one invocation at a time'));
      return new Promise<SQSBatchResponse>((resolve, reject) => {
        // Lambda stops an invocation at its timeout, whatever its code does (a busy loop included).
        const timer = setTimeout(() => {
          timedOut = true;
          void thread.terminate();
        }, timeoutMs);
        pending = { resolve, reject, onHandlerDeadline, timer, timeoutMs };
        const invocation: SandboxInvocation = { event, deadline: Date.now() + timeoutMs };
        thread.postMessage(invocation);
      });
    },
    async end() {
      stopped = true;
      if (!ended) await thread.terminate();
    },
  };
}
