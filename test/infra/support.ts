import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as events from 'aws-cdk-lib/aws-events';
import * as sns from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import { SundialPropsError } from '../../lib/infra/settings';
import { PROJECT_ROOT, Sundial } from '../../lib/infra/sundial';
import { SundialStack } from '../../lib/infra/sundial-stack';

/** The fixture tasks: `quick-task` (60 s) and `long-report` (300 s). */
export const FIXTURE_FUNCTIONS = join(import.meta.dirname, 'fixtures', 'functions');
export const BAD_FUNCTIONS = join(import.meta.dirname, 'fixtures', 'bad-functions');

/**
 * Templates skip the cyclical-dependency check (one test in resources.test.ts runs it). A synth takes
 * a few seconds (a child process reads the task modules); far longer on a loaded machine.
 */
export const SYNTH_TIMEOUT_MS = 60_000;

/** The feature flags of cdk.json, so tests synthesize what `cdk synth` does. */
function featureFlags(): Record<string, unknown> {
  const { context } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  return Object.fromEntries(Object.entries(context).filter(([key]) => key.startsWith('@aws-cdk/')));
}

/** An app that skips bundling (no esbuild runs) and writes its assembly to a temp dir. */
export function testApp(): App {
  return new App({ context: { ...featureFlags(), 'aws:cdk:bundling-stacks': [] } });
}

export interface Synthesized {
  app: App;
  stack: Stack;
  sundial: Sundial;
  template: Template;
}

const ENV = { account: '123456789012', region: 'us-east-1' };

/**
 * Builds on the first call and returns the same value after. The infra project runs its files in one
 * worker without isolation, so a stack built this way is synthesized once per test run.
 */
function once<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}

const templateOf = (stack: Stack) => Template.fromStack(stack, { skipCyclicalDependenciesCheck: true });

/**
 * The deployable stack over the fixture tasks, built as bin/app.ts builds it: with its outputs and
 * cdk-nag's AwsSolutions checks registered as a validation plugin, so its one synth fails on any
 * unacknowledged finding.
 */
export const defaultStack = once((): Synthesized => {
  const app = testApp();
  const stack = new SundialStack(app, 'Test', { env: ENV, sundial: { functionsDir: FIXTURE_FUNCTIONS } });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack, sundial: stack.sundial, template: templateOf(stack) };
});

/**
 * A Sundial in a plain stack with every optional setting away from its default: removal policy
 * DESTROY, worker batch 5 and concurrency 50, no reserved tick
 * concurrency, no tracing, a shared bus, an alarm topic, a 3 s fire-lag threshold, any removal of
 * schedules declared in code, kept on deletion, and provisioned capacity (reads 5–50, writes 10–200,
 * 60 % target).
 */
export const customizedStack = once((): Synthesized => {
  const app = testApp();
  const stack = new Stack(app, 'Test', { env: ENV });
  const sundial = new Sundial(stack, 'Sundial', {
    functionsDir: FIXTURE_FUNCTIONS,
    removalPolicy: RemovalPolicy.DESTROY,
    workerBatchSize: 5,
    workerMaxConcurrency: 50,
    criticalWorkerMaxConcurrency: 5,
    tickReservedConcurrency: null,
    tracing: false,
    eventBus: events.EventBus.fromEventBusName(stack, 'SharedBus', 'shared-bus'),
    alarmTopic: new sns.Topic(stack, 'Alerts', { enforceSSL: true }),
    fireLagP99ThresholdMs: 3000,
    maxScheduleRemovalPercent: 100,
    keepSchedulesOnDelete: true,
    billing: {
      mode: 'provisioned',
      readCapacity: { min: 5, max: 50 },
      writeCapacity: { min: 10, max: 200 },
      targetUtilizationPercent: 60,
    },
  });
  return { app, stack, sundial, template: templateOf(stack) };
});

/** The resources of one type, by logical id. */
export function resourcesOf(
  template: Template,
  type: string,
): Record<string, { Properties: Record<string, unknown> }> {
  return template.findResources(type) as Record<string, { Properties: Record<string, unknown> }>;
}

/** The logical id of the one resource whose id starts with `prefix` (ids embed the construct path). */
export function logicalId(template: Template, type: string, prefix: string): string {
  const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  if (ids.length !== 1)
    throw new Error(`expected one ${type} starting with ${prefix}, found: ${ids.join(', ') || 'none'}`);
  return ids[0] as string;
}

export interface Statement {
  actions: string[];
  resources: unknown[];
  condition?: Record<string, unknown>;
}

const asArray = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** Every Allow statement of every policy attached to the role of a Sundial function (`Tick`, `Worker`, `Admin`, …). */
export function roleStatements(
  template: Template,
  fn: 'Tick' | 'Dispatcher' | 'Worker' | 'Admin' | 'Schedules',
): Statement[] {
  const role = logicalId(template, 'AWS::IAM::Role', `Sundial${fn}Role`);
  return Object.values(resourcesOf(template, 'AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: role }]))
    .flatMap(
      (policy) => (policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement,
    )
    .filter((statement) => statement.Effect === 'Allow')
    .map((statement) => ({
      actions: asArray(statement.Action as string | string[]),
      resources: asArray(statement.Resource),
      ...(statement.Condition ? { condition: statement.Condition as Record<string, unknown> } : {}),
    }));
}

/** The problems of the `SundialPropsError` that `run` throws (and a failure when it throws none). */
export function problemsOf(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof SundialPropsError) return error.problems;
    throw error;
  }
  throw new Error('expected a SundialPropsError');
}
