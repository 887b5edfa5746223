import { describe, expect, it } from 'vitest';
import { takeoverOrder } from '../../../lib/core/delivery/takeover-order';
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
  it('is before the claim when the latest change is not later than the claim', () => {
    expect(takeoverOrder(changed(3, claimedAt), claimedAsV1)).toBe('before_claim');
  });

  it('is after the claim when one change since the run’s revision came later', () => {
    expect(takeoverOrder(changed(2, claimedAt + 1), claimedAsV1)).toBe('after_claim');
  });

  it('is unknown when two changes since the run’s revision end after the claim', () => {
    expect(takeoverOrder(changed(3, claimedAt + 1), claimedAsV1)).toBe('unknown');
  });

  it('is unknown when the schedule was removed and added again after the claim', () => {
    const readded = { ...changed(1, claimedAt + 1), createdAt: claimedAt + 1 };
    expect(takeoverOrder(readded, claimedAsV1)).toBe('unknown');
  });

  it('is unknown when the run’s revision was not stored and the schedule changed after the claim', () => {
    expect(takeoverOrder(changed(2, claimedAt + 1), { claimedAt, revision: undefined })).toBe('unknown');
    expect(takeoverOrder(changed(2, claimedAt), { claimedAt, revision: undefined })).toBe('before_claim');
  });
});
