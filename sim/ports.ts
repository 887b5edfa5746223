import { StoreUnavailableError } from '../lib/core/errors';
import type { Rng } from './rng';
import type { SimProcess, Simulation } from './scheduler';

/** How often each fault happens to one call (each a probability in [0, 1)). */
export interface FaultRates {
  /** Refused before it applied (throttled, or the store unreachable): `StoreUnavailableError`. */
  refused: number;
  /** Applied, but its caller gets `StoreUnavailableError` (the answer lost, the retries refused). */
  answerLost: number;
  /** Its process dies before the call reaches the store. */
  crashBefore: number;
  /** Its process dies after the call applied, before it sees the answer. */
  crashAfter: number;
  /**
   * Applied, its answer lost, and applied again by the store's own retry (the DynamoDB adapter retries a
   * request whose answer did not come): the caller gets the retry's answer, which must tell its own
   * earlier try. Only for the operations a port lists in `retriedAfterLostAnswer` (the others answer as
   * usual). Not a disturbance: handled as it must be, the caller never knows.
   */
  answerLostRetried: number;
}

export const NO_FAULTS: FaultRates = {
  refused: 0,
  answerLost: 0,
  crashBefore: 0,
  crashAfter: 0,
  answerLostRetried: 0,
};

/** How long a call takes, uniform in [min, max] ms, with a rare slow one (`slowChance`, up to `slowMs`). */
export interface Latency {
  minMs: number;
  maxMs: number;
  slowChance: number;
  slowMs: number;
}

export interface PortOptions {
  /** The name the trace gives its calls (`store.claimJob`). */
  name: string;
  faults: () => FaultRates;
  latency: Latency;
  rng: Rng;
  /** Methods called synchronously (no operation, no fault: `noteShardOf`). */
  synchronous?: readonly string[];
  /** Methods whose lost answers the store's retry meets (`FaultRates.answerLostRetried`). */
  retriedAfterLostAnswer?: readonly string[];
  /** Counts every call by method (what the run reports). */
  calls?: Map<string, number>;
}

/**
 * `target` behind a port of the simulation, as a process calls it: each method call is one operation of
 * that process, run when the scheduler picks it, with its latency and, drawn for each call, one of the
 * faults of `options.faults()`. The target's method runs at that moment, whole: the memory store's
 * operations are atomic as DynamoDB's single-item writes and transactions are.
 */
export function simulatedPort<T extends object>(
  sim: Simulation,
  target: T,
  options: PortOptions,
): (proc: SimProcess) => T {
  const synchronous = new Set(options.synchronous ?? []);
  const retried = new Set(options.retriedAfterLostAnswer ?? []);
  return (proc) => portOf(sim, target, options, proc, synchronous, retried);
}

function portOf<T extends object>(
  sim: Simulation,
  target: T,
  options: PortOptions,
  proc: SimProcess,
  synchronous: ReadonlySet<string>,
  retried: ReadonlySet<string>,
): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (typeof value !== 'function' || typeof property !== 'string' || synchronous.has(property)) {
        return typeof value === 'function' ? value.bind(object) : value;
      }
      let method = wrapped.get(property);
      if (!method) {
        const label = `${options.name}.${property}`;
        method = (...args: unknown[]) => {
          if (options.calls) options.calls.set(label, (options.calls.get(label) ?? 0) + 1);
          return sim.operation(
            proc,
            `${label}${subjectOf(args[0])}`,
            latencyOf(options.latency, options.rng),
            (settle) => {
              const fault = drawFault(options.rng, options.faults());
              if (fault === 'refused' || fault === 'answerLost') sim.lastDisturbanceAt = sim.time;
              if (fault === 'refused' || fault === 'answerLost')
                sim.note(`${label}${subjectOf(args[0])}: ${fault}`);
              if (fault === 'crashBefore') return sim.crash(proc, label, 'crash before');
              if (fault === 'refused') return settle.reject(unavailable(label, 'refused'));
              const apply = () => {
                const outer = sim.executing;
                sim.executing = proc;
                try {
                  return Promise.resolve(value.apply(object, args));
                } catch (error) {
                  return Promise.reject(error);
                } finally {
                  sim.executing = outer;
                }
              };
              let result = apply();
              if (fault === 'answerLostRetried' && retried.has(property)) {
                sim.note(`RETRIED ${label} (answer lost)`);
                result = result.then(apply, apply);
              }
              if (fault === 'crashAfter') {
                result.catch(() => {});
                return sim.crash(proc, label, 'crash after');
              }
              if (fault === 'answerLost') {
                result.catch(() => {});
                return settle.reject(unavailable(label, 'answer lost'));
              }
              settle.resolve(result);
            },
          );
        };
        wrapped.set(property, method);
      }
      return method;
    },
  });
}

type Fault = keyof FaultRates | 'none';

function drawFault(rng: Rng, rates: FaultRates): Fault {
  const draw = rng.next();
  let bound = rates.refused;
  if (draw < bound) return 'refused';
  bound += rates.answerLost;
  if (draw < bound) return 'answerLost';
  bound += rates.crashBefore;
  if (draw < bound) return 'crashBefore';
  bound += rates.crashAfter;
  if (draw < bound) return 'crashAfter';
  bound += rates.answerLostRetried;
  if (draw < bound) return 'answerLostRetried';
  return 'none';
}

export function latencyOf(latency: Latency, rng: Rng): number {
  if (rng.chance(latency.slowChance)) return rng.between(latency.maxMs, latency.slowMs);
  return rng.between(latency.minMs, latency.maxMs);
}

function unavailable(label: string, why: string): StoreUnavailableError {
  return new StoreUnavailableError(`${label} (${why})`);
}

/** What a call is about, for the trace: the job, schedule or task its first argument names. */
function subjectOf(first: unknown): string {
  if (typeof first === 'string') return ` ${first}`;
  if (typeof first !== 'object' || first === null) return '';
  const fields = first as Record<string, unknown>;
  const job = fields.job as { id?: unknown } | undefined;
  const message = fields.message as { job?: { id?: unknown } } | undefined;
  const schedule = fields.schedule as { id?: unknown } | undefined;
  const subject =
    job?.id ??
    message?.job?.id ??
    fields.jobId ??
    schedule?.id ??
    fields.id ??
    fields.scheduleId ??
    fields.task;
  return typeof subject === 'string' ? ` ${subject}` : '';
}
