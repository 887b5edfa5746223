import { describe, expect, it } from 'vitest';
import type { UnreadableMessage } from '../../../lib/core/ports/dead-letter-queue';
import { T0 } from '../support';
import { recordFor, workerHarness } from './harness';

function recordingDeadLetters(failing = false) {
  const received: UnreadableMessage[] = [];
  return {
    received,
    async deadLetter(message: UnreadableMessage) {
      if (failing) throw new Error('DLQ unavailable');
      received.push(message);
    },
  };
}

describe('worker: unreadable messages', () => {
  it('moves an unreadable message to the DLQ unchanged and lets the jobs queue delete it', async () => {
    // Prepare
    const worker = workerHarness({ echo: { handler: () => null } });
    const deadLetters = recordingDeadLetters();
    worker.deps.deadLetters = deadLetters;
    const good = recordFor('good', 'echo');
    const notJson = { ...recordFor('bad-1', 'echo'), body: 'secret-token-123 {' };

    // Act
    const response = await worker.deliver([good, notJson]);

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(deadLetters.received).toEqual([
      { body: 'secret-token-123 {', messageId: notJson.messageId, reason: expect.any(String) },
    ]);
    expect(deadLetters.received[0]?.reason).not.toContain('secret-token-123');
    expect((await worker.store.getJob('good', T0))?.status).toBe('success');
    const logs = JSON.stringify(worker.logLines);
    expect(logs).toContain('moved to the DLQ');
    expect(logs).not.toContain('secret-token-123');
  });

  it('moves aside, running nothing, the first delivery of a fire without its schedule’s revision', async () => {
    // Prepare: every fire a dispatch sends names the revision its check compares (ADR 0002)
    let runs = 0;
    const worker = workerHarness({ echo: { handler: () => void runs++ } });
    const deadLetters = recordingDeadLetters();
    worker.deps.deadLetters = deadLetters;
    const fire = { origin: 'schedule' as const, scheduleId: 's-1', fireTime: T0 };

    // Act
    const response = await worker.deliver([recordFor('s-1@fire', 'echo', fire)]);

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(runs).toBe(0);
    expect(deadLetters.received).toEqual([
      expect.objectContaining({ reason: expect.stringContaining('revision') }),
    ]);
  });

  it('leaves the message to the redrive policy when the DLQ cannot take it', async () => {
    // Prepare
    const worker = workerHarness({ echo: { handler: () => null } });
    worker.deps.deadLetters = recordingDeadLetters(true);
    const wrongShape = { ...recordFor('bad', 'echo'), body: JSON.stringify({ v: 1, job: {} }) };

    // Act
    const response = await worker.deliver([wrongShape]);

    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: wrongShape.messageId }]);
    expect(JSON.stringify(worker.logLines)).toContain('moving it to the DLQ failed');
  });

  it('counts unreadable messages in the UnreadableMessages metric either way', async () => {
    // Prepare
    const worker = workerHarness({ echo: { handler: () => null } });
    worker.deps.deadLetters = recordingDeadLetters();

    // Act
    await worker.deliver([{ ...recordFor('bad', 'echo'), body: '[]' }]);

    // Assess
    expect(worker.metricLines[0]).toMatchObject({ Service: 'worker', UnreadableMessages: 1 });
  });
});
