import { describe, expect, it } from 'vitest';
import { emfDocuments } from '../../../lib/runtime/observability/metrics';

describe('EMF metrics', () => {
  it('splits a distribution of more than 100 values over several documents and skips empty metrics', () => {
    // Act
    const documents = emfDocuments(
      'Sundial',
      { Service: 'tick' },
      [
        { name: 'JobsEnqueued', unit: 'Count', values: [3] },
        { name: 'FireLag', unit: 'Milliseconds', values: Array.from({ length: 150 }, (_, index) => index) },
        { name: 'Nothing', unit: 'Count', values: [] },
      ],
      1_000,
    ).map((line) => JSON.parse(line));

    // Assess
    expect(documents).toHaveLength(2);
    expect(documents[0]).toMatchObject({ Service: 'tick', JobsEnqueued: 3 });
    expect(documents[0].FireLag).toHaveLength(100);
    expect(documents[1].FireLag).toHaveLength(50);
    expect(documents[1].JobsEnqueued).toBeUndefined();
    expect(documents[0]._aws.CloudWatchMetrics[0].Metrics).toEqual([
      { Name: 'JobsEnqueued', Unit: 'Count' },
      { Name: 'FireLag', Unit: 'Milliseconds' },
    ]);
  });
});
