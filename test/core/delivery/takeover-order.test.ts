import { describe, expect, it } from 'vitest';
import {
  CHANGE_LANDS_WITHIN_MS,
  CLOCKS_AGREE_WITHIN_MS,
  takeoverOrder,
} from '../../../lib/core/delivery/takeover-order';
import type { Schedule } from '../../../lib/core/model/schedule';
import { SECOND, T0 } from '../../runtime/support';

/** A schedule created at T0 whose latest change (version `version`) was made at `updatedAt`. */
function changed(version: number, updatedAt: number): Schedule {
  return { createdAt: T0, version, updatedAt } as Schedule;
}

const claimedAt = T0 + 10 * SECOND;
/** A run whose definition was claimed under version 1 at `claimedAt`. */
const claimedAsV1 = { claimedAt, revision: { createdAt: T0, version: 1 } };

describe('takeoverOrder: when the schedule changed relative to the claim of a vanished run', () => {
  it('is before the claim when the latest change was timed long enough before it to be visible to its check', () => {
    expect(takeoverOrder(changed(3, claimedAt - CHANGE_LANDS_WITHIN_MS), claimedAsV1)).toBe('before_claim');
  });

  it('is unknown when the latest change was timed before the claim but its write may have landed after the check', () => {
    expect(takeoverOrder(changed(2, claimedAt), claimedAsV1)).toBe('unknown');
    expect(takeoverOrder(changed(2, claimedAt - CHANGE_LANDS_WITHIN_MS + 1), claimedAsV1)).toBe('unknown');
  });

  it('is after the claim when one change since the run’s revision came later, by more than the clocks may disagree', () => {
    expect(takeoverOrder(changed(2, claimedAt + CLOCKS_AGREE_WITHIN_MS + 1), claimedAsV1)).toBe(
      'after_claim',
    );
    expect(takeoverOrder(changed(2, claimedAt + CLOCKS_AGREE_WITHIN_MS), claimedAsV1)).toBe('unknown');
  });

  it('is unknown when two changes since the run’s revision end after the claim', () => {
    expect(takeoverOrder(changed(3, claimedAt + SECOND), claimedAsV1)).toBe('unknown');
  });

  it('is unknown when the schedule was removed and added again after the claim', () => {
    const readded = { ...changed(1, claimedAt + SECOND), createdAt: claimedAt + SECOND };
    expect(takeoverOrder(readded, claimedAsV1)).toBe('unknown');
  });

  it('is unknown when the run’s revision was not stored and the schedule changed after the claim', () => {
    expect(takeoverOrder(changed(2, claimedAt + SECOND), { claimedAt, revision: undefined })).toBe('unknown');
    const longBefore = claimedAt - CHANGE_LANDS_WITHIN_MS;
    expect(takeoverOrder(changed(2, longBefore), { claimedAt, revision: undefined })).toBe('before_claim');
  });
});
