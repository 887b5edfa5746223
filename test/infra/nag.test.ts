import { type App, Stack, Validations } from 'aws-cdk-lib';
import * as sns from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ACKNOWLEDGEMENTS } from '../../lib/infra/nag';
import { customizedStack, defaultStack, SYNTH_TIMEOUT_MS, testApp } from './support';

/** cdk-nag 3 reports through the validation framework; `validateScope` returns the same report directly. */
function findings(scope: IConstruct): string[] {
  const report = new AwsSolutionsChecks().validateScope(scope);
  return report.violations.flatMap((violation) =>
    violation.violatingResources.map(
      (resource) => `${violation.severity} ${violation.ruleName} at ${resource.constructPath}`,
    ),
  );
}

/** Every acknowledgement in the tree: construct path → rule id → reason. */
function acknowledgements(scope: IConstruct): Record<string, Record<string, string>> {
  const found: Record<string, Record<string, string>> = {};
  for (const construct of scope.node.findAll()) {
    for (const entry of construct.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      const rules = Object.fromEntries(
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => [
          id.replace(/^annotation::/i, ''),
          reason,
        ]),
      );
      found[construct.node.path] = { ...found[construct.node.path], ...rules };
    }
  }
  return found;
}

describe('cdk-nag AwsSolutions', () => {
  let app: App;
  beforeAll(() => {
    app = defaultStack().app;
  }, SYNTH_TIMEOUT_MS);

  it('finds nothing unacknowledged (errors or warnings) in the default stack', () => {
    expect(findings(app)).toEqual([]);
  });

  it('acknowledges only the runtime pin, the X-Ray wildcard and the tick DLQ, each where it arises and with its reason', () => {
    const perFunction = (fn: string) => ({
      [`Test/Sundial/${fn}/Function`]: { [ACKNOWLEDGEMENTS.runtime.id]: ACKNOWLEDGEMENTS.runtime.reason },
      [`Test/Sundial/${fn}/Role/DefaultPolicy`]: {
        [ACKNOWLEDGEMENTS.xrayWildcard.id]: ACKNOWLEDGEMENTS.xrayWildcard.reason,
      },
    });

    expect(acknowledgements(app)).toEqual({
      'Test/Sundial/Queues/TickDeadLetterQueue': {
        [ACKNOWLEDGEMENTS.tickDeadLetterQueue.id]: ACKNOWLEDGEMENTS.tickDeadLetterQueue.reason,
      },
      ...perFunction('Tick'),
      ...perFunction('Dispatcher'),
      ...perFunction('Worker'),
      ...perFunction('Admin'),
      ...perFunction('Schedules'),
    });
  });

  it('fails a synth on an unacknowledged finding when registered as a validation plugin, as bin/app.ts does', () => {
    const other = testApp();
    new sns.Topic(new Stack(other, 'Other'), 'Alerts'); // a topic that accepts requests without TLS

    Validations.of(other).addPlugins(new AwsSolutionsChecks(other));

    expect(() => other.synth()).toThrow(/AwsSolutions-SNS3/);
  });

  it('finds nothing either with tracing off, an alarm topic, a shared bus, DESTROY and the other settings changed', () => {
    expect(findings(customizedStack().app)).toEqual([]);
  });
});
