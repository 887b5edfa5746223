import { Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { Sundial } from '../../lib/infra/sundial';
import {
  customizedStack,
  defaultStack,
  FIXTURE_FUNCTIONS,
  logicalId,
  problemsOf,
  SYNTH_TIMEOUT_MS,
  testApp,
} from './support';

interface CustomResource {
  Properties: Record<string, unknown>;
  DependsOn?: string[];
}

describe('schedules declared in code, at synth', () => {
  it(
    'fails the synth on one bad schedule, naming the schedule and its field',
    () => {
      const stack = new Stack(testApp(), 'Bad');

      const problems = problemsOf(
        () =>
          new Sundial(stack, 'Sundial', {
            functionsDir: FIXTURE_FUNCTIONS,
            schedules: [
              { id: 'fine', task: 'long-report', trigger: 'rate(1 hour)' },
              { id: 'late-night', task: 'quick-task', trigger: '0 25 * * *', timezone: 'Europe/Berlin' },
            ],
          }),
      );

      expect(problems).toEqual([
        "schedule 'late-night' (the CDK app (Sundial schedules prop)): trigger: invalid cron expression '0 25 * * *': 25 is not a valid hour (allowed 0-23)",
      ]);
    },
    SYNTH_TIMEOUT_MS,
  );

  it(
    'puts the checked schedules in one custom resource, served by the schedules function once its role may act',
    () => {
      const { template } = defaultStack();
      const resources = template.findResources('Custom::SundialSchedules') as Record<string, CustomResource>;
      const fn = logicalId(template, 'AWS::Lambda::Function', 'SundialSchedulesFunction');
      const policy = logicalId(template, 'AWS::IAM::Policy', 'SundialSchedulesDataAccess');

      expect(Object.keys(resources)).toHaveLength(1);
      const [resource] = Object.values(resources) as [CustomResource];
      expect(resource.Properties).toEqual({
        ServiceToken: { 'Fn::GetAtt': [fn, 'Arn'] },
        Schedules: expect.any(String),
        MaxRemovalPercent: '50',
        OnDelete: 'remove',
      });
      expect(JSON.parse(String(resource.Properties.Schedules))).toEqual([
        {
          id: 'quick-hourly',
          declaredIn: 'test/infra/fixtures/functions/quick-task.ts',
          fields: expect.objectContaining({
            task: 'quick-task',
            trigger: { type: 'cron', expression: '0 * * * *' },
            payload: { source: 'code' },
            keep_finished: true,
          }),
        },
      ]);
      expect(resource.DependsOn).toEqual(expect.arrayContaining([fn, policy]));
    },
    SYNTH_TIMEOUT_MS,
  );

  it(
    'keeps the removal guard and what a stack deletion does as the props say',
    () => {
      const { template } = customizedStack();
      const [resource] = Object.values(template.findResources('Custom::SundialSchedules')) as [
        CustomResource,
      ];

      expect(resource.Properties).toMatchObject({ MaxRemovalPercent: '100', OnDelete: 'keep' });
    },
    SYNTH_TIMEOUT_MS,
  );
});
