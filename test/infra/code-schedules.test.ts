import { Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { Sundial } from '../../lib/infra/sundial';
import { FIXTURE_FUNCTIONS, problemsOf, SYNTH_TIMEOUT_MS, testApp } from './support';

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
});
