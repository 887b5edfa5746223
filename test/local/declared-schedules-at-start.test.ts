import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startLocalPlatform } from '../../lib/local/platform';

describe('npm start, loading the tasks', () => {
  it('refuses to start on a bad schedule declared in code, naming the schedule and its field, before starting anything', async () => {
    const started = startLocalPlatform({
      port: 0,
      functionsDir: resolve(import.meta.dirname, 'fixtures/bad-schedules'),
      log: () => {},
    });

    await expect(started).rejects.toThrow(
      /schedule 'morning-report' \(.*fixtures\/bad-schedules\/report\.ts\): payload\.team: /,
    );
  });
});
