import { WOKEN_RESEND_MS } from '../../lib/core/ports/waiting-line';
import type { LineEvent } from './job-trace';
import type { HandlerSpan } from './recorder';
import type { DeadHold, LostWaking } from './worker-crashes';

/** [from, to) in ms. */
type Period = [number, number];

/**
 * The bound on a free slot while a job waits when nothing crashed (ADR 0009: "one message's travel"):
 * a slot comes back free only where a hand-off could not happen in the ending's own write (a joiner
 * between its join and its re-read of the counter, a head that left before the hand-off, a woken
 * entry given back with nobody waiting), and the wake that takes it is a few store calls away (the
 * woken job then holds the slot while its message travels: (b) covers that). On DynamoDB Local those
 * calls take well under a second; the rest is room for the soak's single throttles and lost answers,
 * which the store retries (six tries, backoff growing to a second: up to about 3 s for one call). A CI
 * run on two loaded cores measured 3.7 s with such retries against a bound of 2 s.
 */
export const TRAVEL_MS = 5_000;
/** The tick repairs lines last, before it ends; this covers the trace's own timing. */
export const REPAIR_MARGIN_MS = 500;
/**
 * A joiner that died this long before a slot came back may still have lost the waking for it: it
 * joined after the slot's giver read the line's head, and the giver's ending (retried through
 * throttling) landed after the death.
 */
const LOST_WAKING_LOOKBACK_MS = 5_000;

/** Why a slot is taken: a run (claim to ending), a dead invocation's run until its lease ends, a woken job. */
type Holder = 'run' | 'lease' | 'woken';

export interface BacklogVerdict {
  /** Jobs of the task that waited in its line (joined it at least once). */
  waited: number;
  /** The most jobs waiting in the line at once. */
  maxWaiting: number;
  /** The longest a job waited with a slot free and nobody woken for it, nothing crashed (bursts left out). */
  longestFreeMs: number;
  /** The same after a dead run's lease ended or a joiner died: the wait for the next tick to repair it. */
  longestRepairMs: number;
  /** Jobs woken holding a slot (hand-offs and wakes). */
  wokenWithSlot: number;
  /** The longest from a job's wake (with a slot) to its claim or its giving the slot back. */
  longestWokenMs: number;
  /** Where a slot's time goes per run, as means in ms: what limits the line's throughput. */
  slotTime: SlotTime;
  violations: string[];
}

/**
 * Mean ms per run: woken holding the slot, claimed before its handler, in its handler, ending after it;
 * and how many woken jobs were claimed with no message sent for them (run by their waker's invocation).
 */
export interface SlotTime {
  runs: number;
  claimedUnsent: number;
  woken: number;
  claimed: number;
  handler: number;
  ending: number;
}

export interface BacklogInput {
  task: string;
  limit: number;
  spans: readonly HandlerSpan[];
  deadHolds: readonly DeadHold[];
  lostWakings: readonly LostWaking[];
  joins: ReadonlyMap<string, readonly number[]>;
  /** When each job was woken holding a slot. */
  wokenWithSlot: ReadonlyMap<string, readonly number[]>;
  /** When each job's claim succeeded or its woken entry was given back. */
  wokenEnds: ReadonlyMap<string, readonly number[]>;
  /** When a message of each job was sent (sends that did not fail). */
  sends: ReadonlyMap<string, readonly number[]>;
  /**
   * When a resend of each woken job was taken (`markWokenResent`) by a caller whose send then failed or
   * whose invocation died first: the entry is overdue again one resend period after the taking.
   */
  lostResends: ReadonlyMap<string, readonly number[]>;
  runEnds: ReadonlyMap<string, readonly number[]>;
  /** When the run a handler started at `at` was claimed (its `started_at`), if seen. */
  claimedBefore: (jobId: string, at: number) => number | undefined;
  /** Whether a job id is one of the task's (the trace has every task's). */
  isOfTask: (jobId: string) => boolean;
  /** Each tick's run, [start, end). */
  ticks: readonly Period[];
  /** Every wake, hand-off and resend of a line, for the report of a violation. */
  lineEvents?: readonly LineEvent[];
  bursts: readonly Period[];
  until: number;
}

/**
 * Checks the liveness of a limited task's line with the slot hand-off (ADR 0009), from what the soak
 * recorded. A slot is taken while a run holds it (from its claim's `started_at` until its result or
 * retry is written: a handler's span, `claimedBefore` and `runEnds`), while a dead invocation's run
 * keeps it (until its lease ends: the reaper ends it then), and while a woken job holds it (from the
 * ending or wake that handed it over to the job's claim, or to its giving it back); free otherwise.
 * A job waits from when it joined the line to its handler's next start or its wake with a slot (a
 * woken job holds a slot: it waits for its message, which (b) bounds).
 *
 * (a) No job waits while a slot is free for longer than `TRAVEL_MS`, counted from the end of a
 * throttling burst the stretch overlaps — except where the slot came free from a dead run's lease
 * end, or a joiner died that may have lost its waking: then the next tick must repair it, by the end
 * of the first tick that began after, plus `REPAIR_MARGIN_MS`.
 * (b) A woken job's message is sent (or the job claims or gives back its slot without one: its own
 * turn) by the time a message lost with its sender is sent again: the end of the first tick that began
 * `WOKEN_RESEND_MS` after its wake (or after a throttling burst then), plus `REPAIR_MARGIN_MS`; a
 * resend taken by a caller that died or whose send failed puts it off in the same way from the taking.
 * The queue's own travel is measured (`longestWokenMs`), not bounded: under the soak's load a message
 * waits in the queue for seconds, which no resend shortens. A woken job never claimed fails too.
 */
export function checkBacklog(input: BacklogInput): BacklogVerdict {
  const ofTask = <T>(byJob: ReadonlyMap<string, T>) =>
    new Map([...byJob].filter(([jobId]) => input.isOfTask(jobId)));
  const woken = wokenHolds(ofTask(input.wokenWithSlot), ofTask(input.wokenEnds), input.until);
  const free = freePeriods(input.limit, [
    ...input.spans.map((span): [Period, Holder] => [
      [input.claimedBefore(span.jobId, span.from) ?? span.from, slotBackAt(span, input.runEnds)],
      'run',
    ]),
    ...input.deadHolds
      .filter((hold) => hold.task === input.task)
      .map((hold): [Period, Holder] => [[hold.from, hold.to], hold.to >= hold.leaseUntil ? 'lease' : 'run']),
    ...woken.map((hold): [Period, Holder] => [hold.period, 'woken']),
  ]);
  const waits = waitsOf(input.spans, ofTask(input.joins), ofTask(input.wokenWithSlot), input.until);
  const lostWakings = input.lostWakings.filter((lost) => lost.task === input.task).map((lost) => lost.at);
  const violations: string[] = [];
  let longestFreeMs = 0;
  let longestRepairMs = 0;
  let firstStall: Period | undefined;
  for (const wait of waits) {
    for (const { period, opener } of free) {
      const [from, to] = overlap(wait.period, period);
      if (to <= from) continue;
      const counted = afterBursts(input.bursts, from, to);
      if (counted >= to) continue;
      const lostAt = lostWakings.find((at) => at >= counted - LOST_WAKING_LOOKBACK_MS && at < to);
      const repair = opener === 'lease' || lostAt !== undefined;
      const allowed = repair
        ? tickEnd(input.ticks, Math.max(counted, lostAt ?? counted)) + REPAIR_MARGIN_MS
        : counted + TRAVEL_MS;
      if (repair) longestRepairMs = Math.max(longestRepairMs, to - counted);
      else longestFreeMs = Math.max(longestFreeMs, to - counted);
      if (to > allowed) {
        firstStall ??= [counted, to];
        const why = repair
          ? `${opener === 'lease' ? "a dead run's lease ended" : 'a joiner died'}: the tick's repair was due by ${allowed}`
          : `one message's travel (${TRAVEL_MS} ms) allowed until ${allowed}`;
        violations.push(
          `${wait.jobId} waited ${to - counted} ms with a slot of '${input.task}' free and nobody woken for it (from ${counted}; ${why})`,
        );
      }
    }
  }
  if (firstStall) violations[0] = [violations[0], ...stallContext(input, firstStall)].join('\n');
  let longestWokenMs = 0;
  for (const hold of woken) {
    const [wokenAt, endedAt] = hold.period;
    longestWokenMs = Math.max(longestWokenMs, Math.min(endedAt, input.until) - wokenAt);
    if (endedAt === Number.POSITIVE_INFINITY) {
      violations.push(
        `${hold.jobId} woken at ${wokenAt} holding a slot of '${input.task}' was never claimed`,
      );
      continue;
    }
    const sentAt =
      (input.sends.get(hold.jobId) ?? []).find((at) => at >= wokenAt) ?? Number.POSITIVE_INFINITY;
    const allowed = resendDue(input, hold.jobId, wokenAt);
    if (Math.min(sentAt, endedAt) > allowed) {
      violations.push(
        `${hold.jobId} woken at ${wokenAt} holding a slot of '${input.task}': its message was sent ${sentAt === Number.POSITIVE_INFINITY ? 'never' : `${sentAt - wokenAt} ms later`}, due again by ${allowed}`,
      );
    }
  }
  return {
    waited: new Set(waits.map((wait) => wait.jobId)).size,
    maxWaiting: mostAtOnce(waits.map((wait) => wait.period)),
    longestFreeMs,
    longestRepairMs,
    wokenWithSlot: woken.length,
    longestWokenMs,
    slotTime: slotTimeOf(input, woken),
    violations,
  };
}

function slotTimeOf(input: BacklogInput, woken: readonly { jobId: string; period: Period }[]): SlotTime {
  const runs = input.spans.length;
  const mean = (total: number) => (runs === 0 ? 0 : Math.round(total / runs));
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const finite = woken.filter(({ period: [, to] }) => to < Number.POSITIVE_INFINITY);
  const unsent = finite.filter(
    ({ jobId, period: [from, to] }) => !(input.sends.get(jobId) ?? []).some((at) => at >= from && at <= to),
  );
  return {
    runs,
    claimedUnsent: unsent.length,
    woken: mean(sum(finite.map(({ period: [from, to] }) => to - from))),
    claimed: mean(
      sum(input.spans.map((span) => span.from - (input.claimedBefore(span.jobId, span.from) ?? span.from))),
    ),
    handler: mean(sum(input.spans.map((span) => span.to - span.from))),
    ending: mean(sum(input.spans.map((span) => slotBackAt(span, input.runEnds) - span.to))),
  };
}

/** Where a stretch [from, to) starts to count: after the end of the throttling bursts it overlaps. */
function afterBursts(bursts: readonly Period[], from: number, to: number): number {
  return Math.max(from, ...bursts.filter(([a, b]) => a < to && b > from).map(([, b]) => b));
}

/** The end of the first tick that began at or after `at` (Infinity: none did). */
function tickEnd(ticks: readonly Period[], at: number): number {
  return Math.min(...ticks.filter(([start]) => start >= at).map(([, end]) => end));
}

/**
 * By when a job woken at `wokenAt` must have its message sent: if its sender died, the message is
 * overdue `WOKEN_RESEND_MS` later and sent again by the first tick that begins then (a joiner may come
 * sooner); a throttling burst over that tick's repair puts it off to the first tick after the burst.
 */
function resentBy(input: BacklogInput, wokenAt: number): number {
  const overdueAt = wokenAt + WOKEN_RESEND_MS;
  const repairFrom = afterBursts(input.bursts, overdueAt, tickEnd(input.ticks, overdueAt));
  return tickEnd(input.ticks, repairFrom) + REPAIR_MARGIN_MS;
}

/**
 * `resentBy` the wake, or by the last resend taken in time whose message never went (each taking moves
 * the entry's overdue time on, so the next resend comes one period after it).
 */
function resendDue(input: BacklogInput, jobId: string, wokenAt: number): number {
  let due = resentBy(input, wokenAt);
  for (const takenAt of input.lostResends.get(jobId) ?? []) {
    if (takenAt >= wokenAt && takenAt <= due) due = Math.max(due, resentBy(input, takenAt));
  }
  return due;
}

/**
 * When a handler's slot came back to the counter or was handed on: its run's first result or retry
 * written after the handler ended (a run whose process died has none: its slot is a dead hold until
 * its lease ends).
 */
function slotBackAt(span: HandlerSpan, runEnds: ReadonlyMap<string, readonly number[]>): number {
  return (runEnds.get(span.jobId) ?? []).find((at) => at >= span.to) ?? span.to;
}

/** Each woken job's hold of its slot: from its wake to its next claim or release (Infinity: neither came). */
function wokenHolds(
  wakes: ReadonlyMap<string, readonly number[]>,
  ends: ReadonlyMap<string, readonly number[]>,
  until: number,
): { jobId: string; period: Period }[] {
  return [...wakes].flatMap(([jobId, times]) =>
    times.map((wokenAt) => {
      const ended = (ends.get(jobId) ?? []).find((at) => at >= wokenAt);
      return {
        jobId,
        period: [wokenAt, ended ?? (until > wokenAt ? Number.POSITIVE_INFINITY : until)] as Period,
      };
    }),
  );
}

/**
 * The periods in which fewer than `limit` of `taken` overlap, each with the holder whose end opened
 * it (`run` for the free start).
 */
function freePeriods(
  limit: number,
  taken: readonly [Period, Holder][],
): { period: Period; opener: Holder }[] {
  const events = taken.flatMap(([[from, to], holder]): [number, number, Holder][] => [
    [from, 1, holder],
    [to, -1, holder],
  ]);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const free: { period: Period; opener: Holder }[] = [];
  let running = 0;
  let freeSince: number | undefined = Number.NEGATIVE_INFINITY;
  let opener: Holder = 'run';
  for (const [at, change, holder] of events) {
    running += change;
    if (running >= limit && freeSince !== undefined) {
      if (at > freeSince) free.push({ period: [freeSince, at], opener });
      freeSince = undefined;
    } else if (running < limit && freeSince === undefined) {
      freeSince = at;
      opener = holder;
    }
  }
  if (freeSince !== undefined) free.push({ period: [freeSince, Number.POSITIVE_INFINITY], opener });
  return free;
}

/**
 * Each wait of a job in its line: from its first join since its last start (or wake with a slot) to
 * its next start or wake with a slot.
 */
function waitsOf(
  spans: readonly HandlerSpan[],
  joins: ReadonlyMap<string, readonly number[]>,
  wokenWithSlot: ReadonlyMap<string, readonly number[]>,
  until: number,
): { jobId: string; period: Period }[] {
  const startsOf = new Map<string, number[]>();
  for (const span of spans) startsOf.set(span.jobId, [...(startsOf.get(span.jobId) ?? []), span.from]);
  for (const [jobId, times] of wokenWithSlot) startsOf.set(jobId, [...(startsOf.get(jobId) ?? []), ...times]);
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

/** The most periods that overlap at one instant. */
export function mostAtOnce(periods: readonly Period[]): number {
  const edges = periods.flatMap(([from, to]): [number, number][] => [
    [from, 1],
    [to, -1],
  ]);
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, change] of edges) {
    now += change;
    most = Math.max(most, now);
  }
  return most;
}

/** What the ticks and the line's wakers did around the first stall: the ticks' runs and the line's events. */
function stallContext(input: BacklogInput, [from, to]: Period): string[] {
  const window: Period = [from - 5_000, to + 200];
  const inWindow = (at: number) => at >= window[0] && at <= window[1];
  const ticks = input.ticks
    .filter(([start, end]) => inWindow(start) || inWindow(end))
    .map(([start, end]) => `+${start - from}…+${end - from}`);
  const events = (input.lineEvents ?? [])
    .filter((event) => event.task === input.task && inWindow(event.at))
    .map((event) => `    +${event.at - from} ms ${event.who}: ${event.what}`);
  return [`  around the first stall (from ${from}): ticks ${ticks.join(', ') || 'none'}`, ...events];
}
