import { describe, expect, it } from 'vitest';
import { bundlesMarkdown } from '../../bench/report/bundles-section';
import type { BundleRow } from '../../bench/scenarios/bundles';
import type { ColdStartSample } from '../../bench/support/cold-start';

/** A worker process that imported in `importMs` and ran two jobs, logging 10 ms into each invocation. */
function sample(importMs: number, firstMs: number): ColdStartSample {
  return {
    importMs,
    importCpuMs: importMs / 2,
    invocationsMs: [firstMs, 20],
    invocationsCpuMs: [firstMs / 2, 5],
    jobLogMs: [10, 10],
    jobLogCpuMs: [4, 2],
    failures: [0, 0],
  };
}

function worker(baseline: boolean, samples: ColdStartSample[]): BundleRow {
  return {
    label: baseline ? 'worker (baseline)' : 'worker',
    bytes: baseline ? 1_522_000 : 824_000,
    ...(baseline ? {} : { sdkBytes: 440_000 }),
    lambda: { name: 'worker', baseline },
    samples,
  };
}

const nothing: BundleRow = { label: 'nothing (an empty module)', samples: [sample(4, 0)] };

describe('the bundles section of the bench report', () => {
  it('shows medians, the SDK share and each figure against the baseline of the same Lambda', () => {
    // Prepare
    const rows = [
      nothing,
      worker(false, [sample(100, 60), sample(120, 50), sample(90, 70)]),
      worker(true, [sample(300, 40), sample(280, 40), sample(320, 40)]),
    ];

    // Act
    const markdown = bundlesMarkdown({ reps: 3, rows, baseline: '.cache/main/cdk.out' });

    // Assess
    expect(markdown).toContain('| nothing (an empty module) |  |  | 4 | 2 |  |  |');
    expect(markdown).toContain('| worker | 824 | 440 | 100 | 50 | 33 % | 33 % |');
    expect(markdown).toContain('| worker (baseline) | 1522 |  | 300 | 150 |  |  |');
    // import + to the job's log, import + 1st invocation (medians of the sums), then the invocations
    expect(markdown).toContain('| worker | 110 | 160 | 60 (30) | 10 (4) | 20 (5) | 10 (2) | 35 % | 47 % |');
  });

  it('leaves the baseline columns out of a run without one', () => {
    const markdown = bundlesMarkdown({ reps: 1, rows: [nothing, worker(false, [sample(100, 60)])] });

    expect(markdown).not.toContain('baseline');
    expect(markdown).toContain('| worker | 824 | 440 | 100 | 50 |');
    expect(markdown).toContain('| worker | 110 | 160 | 60 (30) | 10 (4) | 20 (5) | 10 (2) |');
  });
});
