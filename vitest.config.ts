import { defineConfig } from 'vitest/config';

/**
 * Two projects:
 * - `unit`: pure tests, no network, fake time.
 * - `integration`: real DynamoDB Local (and the SQS emulator), started once per run by the global setup.
 */
export default defineConfig({
  test: {
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: 'reports/vitest.json' },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.int.test.ts', 'test/**/*.e2e.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.int.test.ts', 'test/**/*.e2e.test.ts'],
          environment: 'node',
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
