import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EpochMs } from '../../../lib/core/clock';
import { type AndTriggerSpec, compileTrigger, parseTrigger } from '../../../lib/core/triggers';
import { firstCoincidence } from '../../../lib/core/triggers/coincidence-search';
import { pairingPeriodMs } from '../../../lib/core/triggers/combined-sources';
import { denseAndArb, instantArb } from './arbitraries';

const FIRES_PER_RUN = 30;

function compileAnd(input: unknown) {
  const spec = parseTrigger(input) as AndTriggerSpec;
  const children = spec.triggers.map((child) => compileTrigger(child));
  const thresholdMs = (spec.threshold_seconds ?? 1) * 1_000;
  return { source: compileTrigger(spec), children, thresholdMs };
}

describe('and trigger pairing (property)', () => {
  it('consumes one fire time of every trigger per fire, within threshold_seconds after it', () => {
    fc.assert(
      fc.property(denseAndArb, instantArb, (input, from) => {
        const { source, children, thresholdMs } = compileAnd(input);
        const lastConsumed = children.map(() => Number.NEGATIVE_INFINITY);
        let fire = source.next(from);
        for (let count = 0; fire !== undefined && count < FIRES_PER_RUN; count++) {
          for (const [index, child] of children.entries()) {
            const partner = child.next(fire) ?? Number.NaN;
            expect(partner).toBeGreaterThan(lastConsumed[index] ?? Number.NEGATIVE_INFINITY);
            expect(partner - fire).toBeLessThanOrEqual(thresholdMs);
            lastConsumed[index] = partner;
          }
          fire = source.next(fire + 1);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('skips no coincidence within a pairing period: the next fire is the first one after the last fire’s partners', () => {
    fc.assert(
      fc.property(denseAndArb, instantArb, (input, from) => {
        const { source, children, thresholdMs } = compileAnd(input);
        const rules = { children, thresholdMs, maxIterations: 10_000 };
        const period = pairingPeriodMs(thresholdMs);
        let fire: EpochMs | undefined = source.next(from);
        for (let count = 0; fire !== undefined && count < FIRES_PER_RUN; count++) {
          const following = source.next(fire + 1);
          if (following === undefined) break;
          if (Math.floor(following / period) === Math.floor(fire / period)) {
            const lastPartner = Math.max(...children.map((child) => child.next(fire ?? 0) ?? Number.NaN));
            expect(firstCoincidence(rules, lastPartner + 1)?.start).toBe(following);
          }
          fire = following;
        }
      }),
      { numRuns: 100 },
    );
  });
});
