import type { HandlerSpan } from './recorder';
import type { DeadHold } from './worker-crashes';

/** [from, to) in ms. */
type Period = [number, number];

/** The tick wakes lines last, before it ends; this covers the trace's own timing. */
export const WAKE_MARGIN_MS = 500;
/** How long a woken job's hold lasts (WAKE_LEASE_MS): after it, its wake-up counts as lost. */
const WOKEN_AT_MOST_MS = 10_000;

export interface BacklogVerdict {
  /** Jobs of the task that waited in its line (joined it at least once). */
  waited: number;
  /** The most jobs waiting in the line at once. */
  maxWaiting: number;
  /** The longest time a job waited while a slot was free and no job was woken for it (bursts left out). */
  longestFreeMs: number;
  /** How much sooner than allowed the latest such wait ended (negative: the bound was exceeded). */
  leastSlackMs: number;
  violations: string[];
}

/**
 * Checks that no job of a limited task waited in its line while a slot of the task stayed free, with
 * no job woken for it, past the fallback: the worker that gives a slot back wakes the next job, and
 * when that wake-up is lost the tick wakes the line (ADR 0003), so a free slot is covered at the latest
 * by the end of the first tick that began after the slot came back to the counter, plus `WAKE_MARGIN_MS`.
 *
 * All from what the soak recorded: a job waits from when it joined the line to its handler's next start
 * (or `until`). A slot is taken while a handler runs (`spans`, recorded inside the handlers), from its
 * run's claim (`claimedBefore`) until its result (or retry) is written (`runEnds`: the counter gets the
 * slot back then), while a
 * dead invocation's run keeps it until its lease ends (`deadHolds`: the reaper gives it back then), and
 * while a job woken for it is on its way (from its wake to its next claim: the queue hop is not the
 * wake-up's to bound); free otherwise. A free stretch that overlaps a throttling burst counts from the
 * burst's end (no store call gets through in one).
 */
export function checkBacklog(input: {
  task: string;
  limit: number;
  spans: readonly HandlerSpan[];
  deadHolds: readonly DeadHold[];
  joins: ReadonlyMap<string, readonly number[]>;
  wakes: ReadonlyMap<string, readonly number[]>;
  claimAnswers: ReadonlyMap<string, readonly number[]>;
  runEnds: ReadonlyMap<string, readonly number[]>;
  /** When the run a handler started at `at` was claimed (its `started_at`), if seen. */
  claimedBefore: (jobId: string, at: number) => number | undefined;
  /** Whether a job id is one of the task's (the trace has every task's). */
  isOfTask: (jobId: string) => boolean;
  /** Each tick's run, [start, end). */
  ticks: readonly Period[];
  /** Every wake of a line, for the report of a violation. */
  lineWakes?: readonly { at: number; who: string; task: string; what: string }[];
  bursts: readonly Period[];
  until: number;
}): BacklogVerdict {
  const ofTask = <T>(byJob: ReadonlyMap<string, T>) =>
    new Map([...byJob].filter(([jobId]) => input.isOfTask(jobId)));
  const free = freePeriods(input.limit, [
    ...input.spans.map(
      (span): Period => [
        input.claimedBefore(span.jobId, span.from) ?? span.from,
        slotBackAt(span, input.runEnds),
      ],
    ),
    ...input.deadHolds.filter((hold) => hold.task === input.task).map((hold): Period => [hold.from, hold.to]),
    ...wokenPeriods(ofTask(input.wakes), ofTask(input.claimAnswers)),
  ]);
  const waits = waitsOf(input.spans, ofTask(input.joins), input.until);
  const violations: string[] = [];
  let longestFreeMs = 0;
  let leastSlackMs = Number.POSITIVE_INFINITY;
  let firstStall: Period | undefined;
  for (const wait of waits) {
    for (const period of free) {
      const [from, to] = overlap(wait.period, period);
      if (to <= from) continue;
      const counted = Math.max(
        from,
        ...input.bursts.filter(([a, b]) => a < to && b > from).map(([, b]) => b),
      );
      if (counted >= to) continue;
      longestFreeMs = Math.max(longestFreeMs, to - counted);
      const allowed = fallbackDue(input.ticks, counted);
      leastSlackMs = Math.min(leastSlackMs, allowed - to);
      if (to > allowed) {
        firstStall ??= [counted, to];
        violations.push(
          `${wait.jobId} waited ${to - counted} ms with a slot of '${input.task}' free and no job woken for it (from ${counted}; the fallback was due by ${allowed})`,
        );
      }
    }
  }
  if (firstStall) violations[0] = [violations[0], ...stallContext(input, firstStall)].join('\n');
  return {
    waited: new Set(waits.map((wait) => wait.jobId)).size,
    maxWaiting: mostAtOnce(waits.map((wait) => wait.period)),
    longestFreeMs,
    leastSlackMs: Number.isFinite(leastSlackMs) ? leastSlackMs : 0,
    violations,
  };
}

/** When the tick's fallback must have woken a line whose slot came free at `freeAt` (Infinity: no tick ran since). */
function fallbackDue(ticks: readonly Period[], freeAt: number): number {
  const ends = ticks.filter(([start]) => start >= freeAt).map(([, end]) => end);
  return Math.min(...ends) + WAKE_MARGIN_MS;
}

/**
 * When a handler's slot came back to the counter: its run's first result or retry written after the
 * handler ended (a run whose process died has none: its slot is a dead hold until its lease ends).
 */
function slotBackAt(span: HandlerSpan, runEnds: ReadonlyMap<string, readonly number[]>): number {
  return (runEnds.get(span.jobId) ?? []).find((at) => at >= span.to) ?? span.to;
}

/** Each woken job on its way: from its wake to its next claim (at most a hold's length). */
function wokenPeriods(
  wakes: ReadonlyMap<string, readonly number[]>,
  claimAnswers: ReadonlyMap<string, readonly number[]>,
): Period[] {
  return [...wakes].flatMap(([jobId, times]) =>
    times.map((wokenAt): Period => {
      const claimed = (claimAnswers.get(jobId) ?? []).find((at) => at >= wokenAt);
      return [wokenAt, Math.min(claimed ?? Number.POSITIVE_INFINITY, wokenAt + WOKEN_AT_MOST_MS)];
    }),
  );
}

/** The periods in which fewer than `limit` of `taken` overlap. */
function freePeriods(limit: number, taken: readonly Period[]): Period[] {
  const free: Period[] = [];
  let running = 0;
  let freeSince: number | undefined = Number.NEGATIVE_INFINITY;
  for (const [at, change] of edges(taken)) {
    running += change;
    if (running >= limit && freeSince !== undefined) {
      free.push([freeSince, at]);
      freeSince = undefined;
    } else if (running < limit && freeSince === undefined) freeSince = at;
  }
  if (freeSince !== undefined) free.push([freeSince, Number.POSITIVE_INFINITY]);
  return free;
}

/** Each wait of a job in its line: from its first join since its last start to its next start. */
function waitsOf(
  spans: readonly HandlerSpan[],
  joins: ReadonlyMap<string, readonly number[]>,
  until: number,
): { jobId: string; period: Period }[] {
  const startsOf = new Map<string, number[]>();
  for (const span of spans) startsOf.set(span.jobId, [...(startsOf.get(span.jobId) ?? []), span.from]);
  const waits: { jobId: string; period: Period }[] = [];
  for (const [jobId, joined] of joins) {
    const starts = (startsOf.get(jobId) ?? []).sort((a, b) => a - b);
    let waitingSince: number | undefined;
    let next = 0;
    for (const at of [...joined].sort((a, b) => a - b)) {
      while (next < starts.length && (starts[next] as number) <= at) {
        if (waitingSince !== undefined) waits.push({ jobId, period: [waitingSince, starts[next] as number] });
        waitingSince = undefined;
        next += 1;
      }
      waitingSince ??= at;
    }
    if (waitingSince !== undefined) waits.push({ jobId, period: [waitingSince, starts[next] ?? until] });
  }
  return waits;
}

function overlap([a, b]: Period, [c, d]: Period): Period {
  return [Math.max(a, c), Math.min(b, d)];
}

/** +1 where a period begins, −1 where it ends, in time order (ends first at the same instant). */
function edges(periods: readonly Period[]): [number, number][] {
  const events = periods.flatMap(([from, to]): [number, number][] => [
    [from, 1],
    [to, -1],
  ]);
  return events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

function mostAtOnce(periods: readonly Period[]): number {
  let now = 0;
  let most = 0;
  for (const [, change] of edges(periods)) {
    now += change;
    most = Math.max(most, now);
  }
  return most;
}

/** What the ticks and wakers did around the first stall: the ticks' runs and every wake of the line. */
function stallContext(input: Parameters<typeof checkBacklog>[0], [from, to]: Period): string[] {
  const window: Period = [from - 1_500, to + 200];
  const inWindow = (at: number) => at >= window[0] && at <= window[1];
  const ticks = input.ticks
    .filter(([start, end]) => inWindow(start) || inWindow(end))
    .map(([start, end]) => `+${start - from}…+${end - from}`);
  const wakes = (input.lineWakes ?? [])
    .filter((wake) => wake.task === input.task && inWindow(wake.at))
    .map((wake) => `    +${wake.at - from} ms ${wake.who}: ${wake.what}`);
  return [`  around the first stall (from ${from}): ticks ${ticks.join(', ') || 'none'}`, ...wakes];
}
