import { describe, expect, it } from 'vitest';
import { writeMetrics } from '../../../lib/runtime/observability/metrics';

function collect() {
  const documents: Record<string, unknown>[] = [];
  const warnings: string[] = [];
  const output = {
    namespace: 'Sundial',
    timestamp: Date.parse('2026-03-02T10:00:00Z'),
    sink: (line: string) => documents.push(JSON.parse(line)),
    logger: {
      debug: () => {},
      info: () => {},
      warn: (message: string) => warnings.push(message),
      error: (message: string) => warnings.push(message),
      child: () => output.logger,
    },
  };
  return { output, documents, warnings };
}

describe('EMF metrics', () => {
  it('writes the metrics with exactly the given dimensions, stamped with the given time', () => {
    // Prepare
    const { output, documents } = collect();

    // Act
    writeMetrics(output, { Service: 'tick', Task: 'report' }, [
      { name: 'RunningJobs', unit: 'Count', values: [2] },
    ]);

    // Assess
    expect(documents).toEqual([
      {
        _aws: {
          Timestamp: Date.parse('2026-03-02T10:00:00Z'),
          CloudWatchMetrics: [
            {
              Namespace: 'Sundial',
              Dimensions: [['Service', 'Task']],
              Metrics: [{ Name: 'RunningJobs', Unit: 'Count' }],
            },
          ],
        },
        Service: 'tick',
        Task: 'report',
        RunningJobs: 2,
      },
    ]);
  });

  it('splits a distribution of more than 100 values over several documents and skips empty metrics', () => {
    // Prepare
    const { output, documents } = collect();

    // Act
    writeMetrics(output, { Service: 'tick' }, [
      { name: 'JobsEnqueued', unit: 'Count', values: [3] },
      { name: 'FireLag', unit: 'Milliseconds', values: Array.from({ length: 150 }, (_, index) => index) },
      { name: 'Nothing', unit: 'Count', values: [] },
    ]);

    // Assess
    expect(documents).toHaveLength(2);
    expect(documents[0]).toMatchObject({ Service: 'tick', JobsEnqueued: 3 });
    expect(documents[0]?.FireLag).toHaveLength(100);
    expect(documents[1]?.FireLag).toHaveLength(50);
    expect(documents[1]?.JobsEnqueued).toBeUndefined();
    expect(documents[1]).toMatchObject({ _aws: { Timestamp: Date.parse('2026-03-02T10:00:00Z') } });
    expect(documents[0]?._aws).toMatchObject({
      CloudWatchMetrics: [
        {
          Dimensions: [['Service']],
          Metrics: [
            { Name: 'JobsEnqueued', Unit: 'Count' },
            { Name: 'FireLag', Unit: 'Milliseconds' },
          ],
        },
      ],
    });
  });

  it('writes nothing when no metric has a value', () => {
    // Prepare
    const { output, documents, warnings } = collect();

    // Act
    writeMetrics(output, { Service: 'worker' }, [{ name: 'StartLag', unit: 'Milliseconds', values: [] }]);

    // Assess
    expect(documents).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('gives each call on the same sink only its own dimensions, metrics and time stamp', () => {
    // Prepare: one process's sink, written by the tick for two tasks and then by the worker
    const { output, documents } = collect();
    const later = { ...output, timestamp: output.timestamp + 60_000 };

    // Act
    writeMetrics(output, { Service: 'tick', Task: 'report' }, [
      { name: 'RunningJobs', unit: 'Count', values: [2] },
    ]);
    writeMetrics(output, { Service: 'tick', Task: 'export' }, [
      { name: 'RunningJobs', unit: 'Count', values: [5] },
    ]);
    writeMetrics(later, { Service: 'worker' }, [{ name: 'StartLag', unit: 'Milliseconds', values: [40] }]);

    // Assess
    expect(documents.map(({ _aws, ...fields }) => fields)).toEqual([
      { Service: 'tick', Task: 'report', RunningJobs: 2 },
      { Service: 'tick', Task: 'export', RunningJobs: 5 },
      { Service: 'worker', StartLag: 40 },
    ]);
    expect(documents[2]?._aws).toMatchObject({
      Timestamp: output.timestamp + 60_000,
      CloudWatchMetrics: [
        { Dimensions: [['Service']], Metrics: [{ Name: 'StartLag', Unit: 'Milliseconds' }] },
      ],
    });
  });
});
