import { describe, expect, it } from 'vitest';
import { bundlePage } from '../../lib/dashboard/assets';

describe('the dashboard page bundle', () => {
  it('holds the page, its protocol and the shared formatters, and nothing of Node, zod or luxon', () => {
    const { code, inputs } = bundlePage();

    const outside = inputs.filter(
      (input) =>
        !/^lib\/(dashboard\/page\/|dashboard\/protocol\.ts$|core\/format\/|core\/model\/job\.ts$)/.test(
          input,
        ),
    );
    expect(outside).toEqual([]);
    expect(inputs).toContain('lib/core/format/triggers.ts');
    expect(code.toString()).toContain('function describeTrigger(');
  });
});
