import { isDeepStrictEqual } from 'node:util';
import { beforeEach, expect, it } from 'vitest';
import {
  allows,
  JOB_ACTIONS,
  JOB_STATES,
  JOB_TRANSITIONS,
  type JobAction,
  type JobState,
} from '../../lib/core/model/job-states';
import type { JobRequest } from '../../lib/core/ports/job-store';
import { type Answer, PORT_CALLS, type PortCall } from './job-port-calls';
import { BRING_TO, finalState, readState } from './job-state-setups';
import { fireRequest, jobRequest, type Store, type StoreFixture, T0 } from './store-fixtures';

/** The kinds of job the table is tried on: each state is reached by both. */
const KINDS = {
  'an added job': (n: number) => jobRequest(`job-${n}`),
  'a schedule fire': (n: number) => fireRequest(`s-${n}`, T0),
} satisfies Record<string, (n: number) => JobRequest>;

/** One try of a call: from `state`, the table's `action` to `to`, or (no action) a refusal. */
interface Try {
  state: JobState;
  action?: JobAction;
  to: JobState;
}

/**
 * The tries of `call`, from the table: from each state, the one action of the call the table allows
 * there (to each of its end states), or a refusal when it allows none.
 */
function triesOf(call: PortCall): Try[] {
  return JOB_STATES.flatMap((state): Try[] => {
    const actions = call.performs.filter((action) => allows(action, state));
    if (actions.length > 1) {
      throw new Error(
        `the table lets ${actions.join(' and ')} move a job from ${state}: ${call.name} is both`,
      );
    }
    const [action] = actions;
    if (action === undefined) {
      const first = call.performs[0] as JobAction;
      return [{ state, to: JOB_TRANSITIONS[first].to[0] as JobState }];
    }
    const { to } = JOB_TRANSITIONS[action];
    // An action that may leave a job where it is leaves it there (`request_cancel`)
    if (to.includes(state)) return [{ state, action, to: state }];
    return to.map((end) => ({ state, action, to: end }));
  });
}

/** What `call` does to `call.performs` as the table has them: "claim from absent, queued … to running; …". */
function describeCall(call: PortCall): string {
  const moves = call.performs.map((action) => {
    const { from, to } = JOB_TRANSITIONS[action];
    return `${action} from ${from.join(', ')} to ${to.join(', ')}`;
  });
  return `${call.name}: ${moves.join('; ')}; refused from any other state`;
}

/** Brings a new job of `kind` to `state`, makes `call` and says what differs from the table (nothing: undefined). */
async function tryCall(store: Store, call: PortCall, kind: keyof typeof KINDS, n: number, tried: Try) {
  const { state, action, to } = tried;
  const job = KINDS[kind](n);
  const where = `${kind} ${state}`;
  await BRING_TO[state](store, job);
  const before = await readState(store, job.id);
  const readsAs = state === 'cancelled_by_check' ? 'cancelled' : state;
  if (before.state !== readsAs) return `${where}: bringing it there left it ${before.state}`;

  let answer: Answer;
  try {
    answer = await call.apply(store, job, before.job, to);
  } catch (error) {
    return `${where}: the call threw ${String(error)}`;
  }
  const unchanged = isDeepStrictEqual((await readState(store, job.id)).job, before.job);
  const now = await finalState(store, job);
  if (action !== undefined) {
    if (answer === 'applied' && now === to) return undefined;
    return `${where}: ${action} should move it to ${to}, but the store ${answer} the call and left it ${now}`;
  }
  if (answer !== 'refused')
    return `${where}: the table refuses the call, but the store applied it (now ${now})`;
  if (!unchanged || now !== state)
    return `${where}: the store refused the call but changed the job (now ${now})`;
  return undefined;
}

/**
 * The transition table (`JOB_TRANSITIONS`) as each store implements it: every call of the port that
 * moves a job, from every state, for an added job and a schedule's fire: where the table allows one of
 * the call's actions, the job ends in each of that action's states; elsewhere the store refuses (as
 * the port refuses: an error, an answer) and the job reads back unchanged.
 */
export function jobTransitionsContract(fixture: () => StoreFixture): void {
  let store: Store;
  beforeEach(() => {
    ({ store } = fixture());
  });

  it('brings a job to every state of the table, and makes a call of the port for every action', () => {
    expect(JOB_STATES.filter((state) => BRING_TO[state] === undefined)).toEqual([]);
    const made = new Set(PORT_CALLS.flatMap((call) => call.performs));
    expect(JOB_ACTIONS.filter((action) => !made.has(action))).toEqual([]);
  });

  for (const call of PORT_CALLS) {
    it(describeCall(call), async () => {
      const tries = Object.keys(KINDS).flatMap((kind) =>
        triesOf(call).map((tried) => ({ kind: kind as keyof typeof KINDS, tried })),
      );
      const differences = await Promise.all(
        tries.map(({ kind, tried }, n) => tryCall(store, call, kind, n, tried)),
      );

      expect(differences.filter((difference) => difference !== undefined)).toEqual([]);
    });
  }
}
