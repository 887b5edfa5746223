import { describe, expect, it } from 'vitest';
import { isJobId, parseFireJobId, runNowJobId, scheduleJobId } from '../../../lib/core/model/job-id';

describe('job ids', () => {
  it('names a schedule fire <schedule id>@<fire time in epoch ms>, and reads it back', () => {
    const id = scheduleJobId('nightly', 1_774_771_200_000);

    expect(id).toBe('nightly@1774771200000');
    expect(parseFireJobId(id)).toEqual({ scheduleId: 'nightly', fireTime: 1_774_771_200_000 });
  });

  it('names a run-now job so that it can never be read as a fire', () => {
    const id = runNowJobId('nightly', '0b7c');

    expect(id).toBe('nightly@run-0b7c');
    expect(parseFireJobId(id)).toBeUndefined();
    expect(parseFireJobId('report-2026-03')).toBeUndefined();
  });

  it('reads as a fire only an id written by scheduleJobId (the DynamoDB key of the job depends on it)', () => {
    expect(parseFireJobId('nightly@0')).toEqual({ scheduleId: 'nightly', fireTime: 0 });
    expect(parseFireJobId('nightly@9007199254740991')).toEqual({
      scheduleId: 'nightly',
      fireTime: Number.MAX_SAFE_INTEGER,
    });
    expect(
      ['nightly@007', 'nightly@10000000000000000', 'nightly@-1', 'nightly@1.5'].map(parseFireJobId),
    ).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('accepts ids of the id characters with at most one @ between two of them', () => {
    expect(['report-2026-03', 'a.b_c:d-e', 'nightly@1774771200000', 'nightly@run-0b7c'].map(isJobId)).toEqual(
      [true, true, true, true],
    );
    expect(['', 'a@b@c', '@x', 'x@', 'white space', 'ünï'].map(isJobId)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
