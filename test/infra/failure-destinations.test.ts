import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as events from 'aws-cdk-lib/aws-events';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { SundialPropsError } from '../../lib/infra/settings';
import { Sundial } from '../../lib/infra/sundial';
import {
  FIXTURE_FUNCTIONS,
  logicalId,
  problemsOf,
  resourcesOf,
  roleStatements,
  SYNTH_TIMEOUT_MS,
  testApp,
} from './support';

let template: Template;
let failedQueue: string;
beforeAll(() => {
  const stack = new Stack(testApp(), 'Test', { env: { account: '123456789012', region: 'us-east-1' } });
  const queue = new sqs.Queue(stack, 'FailedQuickTasks', { enforceSSL: true });
  new Sundial(stack, 'Sundial', {
    functionsDir: FIXTURE_FUNCTIONS,
    failureDestinations: {
      'quick-task': { queue },
      'long-report': { eventBus: events.EventBus.fromEventBusName(stack, 'OpsBus', 'ops-bus') },
    },
  });
  template = Template.fromStack(stack, { skipCyclicalDependenciesCheck: true });
  failedQueue = logicalId(template, 'AWS::SQS::Queue', 'FailedQuickTasks');
}, SYNTH_TIMEOUT_MS);

const statementsOf = (fn: 'Tick' | 'Worker' | 'Admin') => roleStatements(template, fn);

function environmentOf(description: RegExp): Record<string, unknown> {
  const fn = Object.values(resourcesOf(template, 'AWS::Lambda::Function')).find((candidate) =>
    description.test(String(candidate.Properties.Description)),
  );
  if (!fn) throw new Error(`no function described as ${description}`);
  return (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
}

const mentionsFailedQueue = (statement: { resources: unknown[] }) =>
  JSON.stringify(statement.resources).includes(failedQueue);

describe('failure destinations', () => {
  it('tell the worker, and only the worker, where each task’s failed jobs go', () => {
    const variable = JSON.stringify(environmentOf(/^Sundial worker/).SUNDIAL_FAILURE_DESTINATIONS);

    expect(variable).toContain(`"Ref":"${failedQueue}"`);
    expect(variable).toContain('ops-bus');
    expect(variable).toContain('quick-task');
    expect(environmentOf(/^Sundial tick/).SUNDIAL_FAILURE_DESTINATIONS).toBeUndefined();
    expect(environmentOf(/^Sundial admin/).SUNDIAL_FAILURE_DESTINATIONS).toBeUndefined();
  });

  it('let the worker send to the failure queue and nothing else there, and put events on that bus only', () => {
    const worker = statementsOf('Worker');
    const onQueue = worker.filter(mentionsFailedQueue);
    const putEvents = worker.filter((statement) => statement.actions.includes('events:PutEvents'));

    expect(onQueue).toEqual([
      { actions: ['sqs:SendMessage'], resources: [{ 'Fn::GetAtt': [failedQueue, 'Arn'] }] },
    ]);
    expect(JSON.stringify(putEvents.flatMap((statement) => statement.resources))).toContain(
      ':event-bus/ops-bus',
    );
  });

  it('give the tick and the admin nothing on the failure queue', () => {
    expect(statementsOf('Tick').filter(mentionsFailedQueue)).toEqual([]);
    expect(statementsOf('Admin').filter(mentionsFailedQueue)).toEqual([]);
    expect(
      [...statementsOf('Tick'), ...statementsOf('Admin')].flatMap((statement) =>
        JSON.stringify(statement.resources).includes('ops-bus') ? [statement] : [],
      ),
    ).toEqual([]);
  });

  it(
    'refuse a FIFO queue (the worker sends notices without a message group), naming the task',
    () => {
      const stack = new Stack(testApp(), 'Fifo');
      const queue = new sqs.Queue(stack, 'Failed', { fifo: true, enforceSSL: true });

      expect(
        problemsOf(
          () =>
            new Sundial(stack, 'Sundial', {
              functionsDir: FIXTURE_FUNCTIONS,
              failureDestinations: { 'quick-task': { queue } },
            }),
        ),
      ).toEqual([
        "failureDestinations: 'quick-task' is a FIFO queue; use a standard queue (notices carry no message group)",
      ]);
    },
    SYNTH_TIMEOUT_MS,
  );

  it(
    'hand the worker the ARN of a destination bus, so one of another account is reached',
    () => {
      const stack = new Stack(testApp(), 'Central', {
        env: { account: '123456789012', region: 'us-east-1' },
      });
      const arn = 'arn:aws:events:us-east-1:999999999999:event-bus/central';
      new Sundial(stack, 'Sundial', {
        functionsDir: FIXTURE_FUNCTIONS,
        failureDestinations: {
          'quick-task': { eventBus: events.EventBus.fromEventBusArn(stack, 'Bus', arn) },
        },
      });
      const worker = Object.values(resourcesOf(Template.fromStack(stack), 'AWS::Lambda::Function')).find(
        (fn) => String(fn.Properties.Description).startsWith('Sundial worker'),
      );
      const environment = worker?.Properties.Environment as
        | { Variables: Record<string, unknown> }
        | undefined;

      expect(JSON.stringify(environment?.Variables.SUNDIAL_FAILURE_DESTINATIONS)).toContain(arn);
    },
    SYNTH_TIMEOUT_MS,
  );

  it(
    'refuse a destination for a task that does not exist',
    () => {
      const stack = new Stack(testApp(), 'Other');
      const queue = new sqs.Queue(stack, 'Failed', { enforceSSL: true });

      expect(
        () =>
          new Sundial(stack, 'Sundial', {
            functionsDir: FIXTURE_FUNCTIONS,
            failureDestinations: { 'quick-tsak': { queue } },
          }),
      ).toThrow(SundialPropsError);
    },
    SYNTH_TIMEOUT_MS,
  );
});
