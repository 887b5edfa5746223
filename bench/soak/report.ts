import type { NoteTotals } from '../../lib/runtime/dispatch/note-run';
import type { DrainEnd, PollerStats } from '../support/pollers';
import { type BacklogVerdict, TRAVEL_MS } from './backlog-check';
import type { SoakVerdict } from './checks';
import type { ChurnKind } from './churn';
import type { Faults } from './faults';
import type { MetricTotals } from './metric-totals';
import type { ExecutionRecorder } from './recorder';
import type { DeadLetterRedrive } from './redrive';

/** Prints the soak's figures and its verdict (stdout). */
export function printSoak(input: {
  verdict: SoakVerdict;
  /** What the schedules with `max_runs` changed mid-run did (see `checkCapped`). */
  capped: string;
  faults: Faults;
  metrics: MetricTotals;
  recorder: ExecutionRecorder;
  pollers: PollerStats;
  redrive: Pick<DeadLetterRedrive, 'copied' | 'redriven'>;
  churnCalls: Record<ChurnKind, number>;
  backlog: BacklogVerdict & { fed: number };
  /** How many woken jobs' messages were sent again as overdue (any task). */
  resentWoken: number;
  /** Resends taken by a caller that died or whose send failed (each waits one more resend period). */
  lostResends: number;
  /** The ticks' period (`--tick-seconds`). */
  tickSeconds: number;
  /** Each tick's run [start, end), both loops. */
  tickRuns: readonly (readonly [number, number])[];
  /** What the two ticks handed to dispatchers (ADR 0006), summed over their runs. */
  fanOut: { shardsLeased: number; dispatchersStarted: number };
  /** What the ticks' dispatchers did with due notes (ADR 0007, 0008), summed over their runs. */
  notes?: NoteTotals;
  inFlightMarginMs: number;
  payloadBytes: readonly number[];
  drainSeconds: number;
  /** How the drain ended: everything recovered, nothing started for `drainStallSeconds`, or its cap. */
  drainEnd: DrainEnd;
  drainStallSeconds: number;
  seconds: number;
}): void {
  const { verdict, faults, metrics } = input;
  const lines = [
    '',
    `soak finished in ${input.seconds.toFixed(0)} s (drain ${input.drainSeconds.toFixed(0)} s: ${drainEndText(input.drainEnd, input.drainStallSeconds)})`,
    `fires that had to complete once ${verdict.expected}, completed ${verdict.executed}; missing ${verdict.missing.length} (late fires cancelled by a pause or removal: ${verdict.cancelledByChange}), completed twice ${verdict.twice.length}, started again after completing ${verdict.doubleStarts.length}, unexpected ${verdict.unexpected.length}`,
    `runs cut off by a worker crash and retried: ${input.recorder.rerunsAfterCrash} (completions taken back: ${input.recorder.discardedByCrash}) — not double executions`,
    `runs whose result could not be written while their lease lasted (retried like a crash): ${input.recorder.resultsNotWritten}; results written though their writer saw the write fail (kept, not run again): ${input.recorder.resultsWrittenUnseen}`,
    `faults injected: ${Object.entries(faults.injected)
      .map(([kind, count]) => `${kind} ${count}`)
      .join(', ')}`,
    `fault rates: ${Object.entries(faults.rates)
      .map(([kind, rate]) => `${kind} ${rate}`)
      .join(
        ', ',
      )}; throttling bursts of ${faults.bursts.lastingSeconds} s every ${faults.bursts.everySeconds} s on average`,
    `payloads: ${payloadSummary(input.payloadBytes)}`,
    `schedule changes mid-run: ${Object.entries(input.churnCalls)
      .map(([kind, count]) => `${kind} ${count}`)
      .join(
        ', ',
      )}; fires due up to ${(input.inFlightMarginMs / 1000).toFixed(0)} s before a change may be cancelled by it (the latest first start of an unchanged schedule's fire)`,
    input.capped,
    `backlog task (limit 2, tick every ${input.tickSeconds} s): ${input.backlog.fed} jobs fed (scheduled and add_jobs), ${input.backlog.waited} waited in its line, at most ${input.backlog.maxWaiting} at once; longest free-slot wait ${input.backlog.longestFreeMs} ms (bound ${TRAVEL_MS} ms), until a tick's repair after a crash ${input.backlog.longestRepairMs} ms; ${input.backlog.wokenWithSlot} woken with a slot, longest woken-to-claim ${input.backlog.longestWokenMs} ms, ${input.resentWoken} woken messages resent (all tasks), ${input.lostResends} resends taken and not sent (the taker died or its send failed); crashes after a hand-off: ${faults.injected.crashAfterHandOff}; a slot's time per run (ms): woken ${input.backlog.slotTime.woken}, claimed before its handler ${input.backlog.slotTime.claimed}, in its handler ${input.backlog.slotTime.handler}, ending ${input.backlog.slotTime.ending} (${input.backlog.slotTime.runs} runs; ${input.backlog.slotTime.claimedUnsent} woken jobs claimed with no message sent)`,
    tickRunsLine(input.tickRuns, input.tickSeconds),
    `fan-out: ${input.fanOut.shardsLeased} due-index shard leases taken by the ticks, ${input.fanOut.dispatchersStarted} dispatchers started`,
    ...(input.notes
      ? [
          `due notes: ${input.notes.notesRead} notes read (${input.notes.staleNotes} skipped), ${input.notes.notesWritten} written, ${input.notes.cursorMoves} cursor moves, ${input.notes.bucketsHeld} buckets held back for a redo, ${input.notes.notesRetried} notes of failed sends retried`,
        ]
      : []),
    `dead letters: ${input.redrive.copied} copied to the DLQ, ${input.redrive.redriven} redriven to the jobs queue`,
    `runtime: succeeded ${metrics.get('JobsSucceeded')}, reaped ${metrics.get('JobsReaped')}, retried ${metrics.get('JobsRetried')}, deferred (no slot / attempt still running) ${metrics.get('JobsDeferred')}, failed ${metrics.get('JobsFailed')}, missed ${metrics.get('JobsMissed')}, tick errors ${metrics.get('TickErrors')}, send failures ${metrics.get('SendFailures')}`,
    `worker invocations ${input.pollers.invocations} (${input.pollers.messages} messages)`,
    `concurrency: ${verdict.concurrency
      .map(
        ({ task, max, limit }) => `${task} max ${max}${limit === null ? ' (no limit)' : ` / limit ${limit}`}`,
      )
      .join(', ')}`,
    `counters: ${[...verdict.counters].map(([task, running]) => `${task}=${running}`).join(', ') || '(none)'}; unfinished jobs ${verdict.unfinished}; ran but not listed by task ${verdict.unlisted.length}, listed twice ${verdict.listedTwice.length}; jobs queue ${verdict.queue}; DLQ ${verdict.deadLetters}`,
    verdict.violations.length === 0
      ? 'OK: every fire and job completed once and is listed once by its task, schedule changes held, limits held, no slot left free while jobs waited, counters at 0, no message left'
      : `VIOLATIONS:\n  ${verdict.violations.join('\n  ')}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

function payloadSummary(bytes: readonly number[]): string {
  const sorted = [...bytes].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const large = sorted.filter((size) => size > 32 * 1024).length;
  return `${sorted.length} schedules, bytes min ${at(0)}, median ${at(0.5)}, max ${at(1)}; ${large} over 32 KB`;
}

function drainEndText(end: DrainEnd, stallSeconds: number): string {
  if (end === 'done') return 'everything recovered';
  if (end === 'stalled') return `stalled, no handler started for ${stallSeconds} s`;
  return 'stopped at --drain-seconds';
}

/**
 * How long the ticks ran, and the longest time between two of them ending: a repair that waits for a
 * tick (a reap, a lost wake-up nobody else touched) waits at most that long.
 */
export function tickRunsLine(runs: readonly (readonly [number, number])[], tickSeconds: number): string {
  const durations = runs.map(([start, end]) => end - start).sort((a, b) => a - b);
  const ends = runs.map(([, end]) => end).sort((a, b) => a - b);
  const longestGap = ends
    .slice(1)
    .reduce((most, end, index) => Math.max(most, end - (ends[index] ?? end)), 0);
  const median = durations[Math.floor(durations.length / 2)] ?? 0;
  return `ticks (two loops, every ${tickSeconds} s): ${runs.length} runs, median ${median} ms, longest ${durations.at(-1) ?? 0} ms; longest between two ticks' ends ${longestGap} ms`;
}
