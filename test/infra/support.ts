import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { SundialProps } from '../../lib/infra/props';
import { PROJECT_ROOT, Sundial } from '../../lib/infra/sundial';
import { SundialStack } from '../../lib/infra/sundial-stack';

/** The fixture tasks: `quick-task` (60 s) and `long-report` (300 s). */
export const FIXTURE_FUNCTIONS = join(import.meta.dirname, 'fixtures', 'functions');
export const BAD_FUNCTIONS = join(import.meta.dirname, 'fixtures', 'bad-functions');

/**
 * Templates skip the cyclical-dependency check (15 s on this template; one test in resources.test.ts
 * runs it). A synth takes ~3 s (a child process reads the task modules); far longer on a loaded machine. */
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

/** The deployable stack (with its outputs) over the fixture tasks, synthesized once. */
export function synthesizeStack(props: SundialProps = {}): Synthesized {
  const app = testApp();
  const stack = new SundialStack(app, 'Test', {
    env: ENV,
    sundial: { functionsDir: FIXTURE_FUNCTIONS, ...props },
  });
  return {
    app,
    stack,
    sundial: stack.sundial,
    template: Template.fromStack(stack, { skipCyclicalDependenciesCheck: true }),
  };
}

/** A Sundial in a plain stack; `props` may create what it refers to (a topic, a bus) in that stack. */
export function synthesize(props: SundialProps | ((stack: Stack) => SundialProps) = {}): Synthesized {
  const app = testApp();
  const stack = new Stack(app, 'Test', { env: ENV });
  const resolved = typeof props === 'function' ? props(stack) : props;
  const sundial = new Sundial(stack, 'Sundial', { functionsDir: FIXTURE_FUNCTIONS, ...resolved });
  return {
    app,
    stack,
    sundial,
    template: Template.fromStack(stack, { skipCyclicalDependenciesCheck: true }),
  };
}

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
