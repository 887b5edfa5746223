import type {
  EventBridgeClient,
  PutEventsCommand,
  PutEventsCommandOutput,
} from '@aws-sdk/client-eventbridge';
import { describe, expect, it } from 'vitest';
import type { PublishFailure } from '../../lib/adapters/eventbridge/eventbridge-publisher';
import type { JobEvent } from '../../lib/core/ports/event-publisher';
import type { FailureNotice } from '../../lib/core/ports/failure-destination';
import { LazyEventBridge } from '../../lib/runtime/event-bus';

/** An EventBridge client that answers every PutEvents with `answer` and records the commands. */
function recordingClient(answer: Partial<PutEventsCommandOutput> = { FailedEntryCount: 0, Entries: [] }) {
  const commands: PutEventsCommand[] = [];
  const client = {
    send: async (command: PutEventsCommand) => {
      commands.push(command);
      return answer;
    },
  } as unknown as EventBridgeClient;
  return { client, commands };
}

const event: JobEvent = {
  type: 'job.failed',
  jobId: 'nightly@1772445600000',
  task: 'send-report',
  scheduleId: 'nightly',
  attempt: 3,
  at: Date.parse('2026-03-02T10:00:00Z'),
};

describe('LazyEventBridge (EventBridge loaded when first used)', () => {
  it('publishes events to its bus through the client, once the first publish has loaded the publisher', async () => {
    // Prepare
    const { client, commands } = recordingClient();
    const events = new LazyEventBridge(client).publisher('sundial-events', () => {});

    // Act
    await events.publish([event]);
    await events.publish([{ ...event, attempt: 4 }]);

    // Assess
    expect(commands.map((command) => command.input.Entries)).toEqual([
      [
        expect.objectContaining({
          EventBusName: 'sundial-events',
          Source: 'sundial',
          DetailType: 'job.failed',
        }),
      ],
      [expect.objectContaining({ Detail: JSON.stringify({ ...event, attempt: 4 }) })],
    ]);
  });

  it('tells of the entries EventBridge rejected, as the publisher it loads does', async () => {
    // Prepare
    const { client } = recordingClient({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure' }] });
    const failures: PublishFailure[] = [];
    const events = new LazyEventBridge(client).publisher('sundial-events', (failure) =>
      failures.push(failure),
    );

    // Act
    await events.publish([event]);

    // Assess
    expect(failures).toEqual([{ ids: ['nightly@1772445600000'], codes: ['InternalFailure'] }]);
  });

  it("puts a failure notice on the task's bus", async () => {
    // Prepare
    const { client, commands } = recordingClient();
    const notice: FailureNotice = {
      jobId: 'nightly@1772445600000',
      task: 'send-report',
      status: 'error',
      error: { type: 'Error', message: 'mail server down' },
      attempts: 3,
      scheduleId: 'nightly',
      fireTime: Date.parse('2026-03-02T10:00:00Z'),
      finishedAt: Date.parse('2026-03-02T10:05:00Z'),
    };

    // Act
    await new LazyEventBridge(client).failureDestination('ops-bus').send(notice);

    // Assess
    expect(commands.map((command) => command.input.Entries)).toEqual([
      [expect.objectContaining({ EventBusName: 'ops-bus', DetailType: 'job.failed_for_good' })],
    ]);
  });
});
