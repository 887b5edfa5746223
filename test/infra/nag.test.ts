import { type App, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as sns from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ACKNOWLEDGEMENTS } from '../../lib/infra/nag';
import { SundialStack } from '../../lib/infra/sundial-stack';
import { FIXTURE_FUNCTIONS, SYNTH_TIMEOUT_MS, synthesize, testApp } from './support';

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
    app = testApp();
    new SundialStack(app, 'Test', { sundial: { functionsDir: FIXTURE_FUNCTIONS } });
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
      ...perFunction('Worker'),
      ...perFunction('Admin'),
    });
  });

  it(
    'lets the app synthesize with the checks registered as a validation plugin, as bin/app.ts does',
    () => {
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

      expect(() => app.synth()).not.toThrow();
    },
    SYNTH_TIMEOUT_MS,
  );

  it(
    'finds nothing either with tracing off, an alarm topic, a shared bus and DESTROY',
    () => {
      const { app: other } = synthesize((stack) => ({
        tracing: false,
        alarmTopic: new sns.Topic(stack, 'Alerts', { enforceSSL: true }),
        eventBus: events.EventBus.fromEventBusName(stack, 'SharedBus', 'shared'),
        removalPolicy: RemovalPolicy.DESTROY,
      }));

      expect(findings(other)).toEqual([]);
    },
    SYNTH_TIMEOUT_MS,
  );
});
