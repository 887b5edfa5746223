import { defineConfig } from 'vitest/config';
import { quietSdkNodeVersionWarning } from './lib/adapters/sdk-node-version';

// The test processes (and the platforms they start) run on Node 20 as users do: see the function.
quietSdkNodeVersionWarning();

/**
 * Four projects; `npm test` runs them all.
 * - `unit`: pure tests, no network, fake time; runs in seconds. Its files share the modules loaded in
 *   their worker (no isolation: loading zod, luxon and the SDK once per worker, not once per file,
 *   is most of the speed), so they mock no module (test/architecture/shared-modules.test.ts).
 * - `infra`: the CDK stack's assertions and an offline `cdk synth`. Its files share one worker without
 *   isolation, so test/infra/support.ts synthesizes each stack once per run (aws-cdk-lib loads once too).
 *   One worker in its own group: after the others, so it never holds back their two workers.
 * - `integration`: real DynamoDB Local (and the SQS emulator), started once per run by the global setup.
 * - `e2e`: the local platform as `npm start` runs it, one file at a time after every other project.
 */
export default defineConfig({
  test: {
    // Two test processes even on two cores (vitest's default is one fewer than the cores): the
    // integration files mostly wait on DynamoDB Local, the SQS emulator and real timers.
    maxWorkers: 2,
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: 'reports/vitest.json' },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.int.test.ts', 'test/**/*.e2e.test.ts', 'test/infra/**'],
          environment: 'node',
          isolate: false,
          // A hang guard, not a timing goal: property tests run for seconds, and on two shared cores
          // under load they outgrew vitest's 5 s default now and then.
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          environment: 'node',
          isolate: false,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.int.test.ts'],
          exclude: ['test/infra/**'],
          environment: 'node',
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/**/*.e2e.test.ts'],
          environment: 'node',
          // Each starts the whole local platform and watches it in real time (handlers held past their
          // deadlines, a Ctrl-C, a page's transcripts): one at a time, last, with nothing else running.
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
