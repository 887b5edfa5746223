import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { PublishFailure } from '../adapters/eventbridge/eventbridge-publisher';
import { withoutSdkLogging } from '../adapters/sdk-logging';
import type { EventPublisher } from '../core/ports/event-publisher';
import type { FailureDestination } from '../core/ports/failure-destination';

/**
 * EventBridge, loaded when it is first used: its SDK client and Sundial's EventBridge adapters are
 * imported by the first event or failure notice sent, not at cold start. Every Lambda publishes, but
 * only after the work an event tells of (a job's run, a schedule's change), so the import is never in
 * the way of a job's start; later invocations of a warm Lambda find it loaded.
 */
export class LazyEventBridge {
  private readonly client: () => Promise<EventBridgeClient>;

  /** `client`: the one to use (the local platform's); absent: one configured from the environment. */
  constructor(client?: EventBridgeClient) {
    this.client = once(async () => {
      if (client) return client;
      const { EventBridgeClient } = await import('@aws-sdk/client-eventbridge');
      return withoutSdkLogging(new EventBridgeClient({}));
    });
  }

  /** Publishes to `eventBusName` (`EventBridgePublisher`). */
  publisher(eventBusName: string, onPublishFailure: (failure: PublishFailure) => void): EventPublisher {
    const publisher = once(async () => {
      const [client, { EventBridgePublisher }] = await Promise.all([
        this.client(),
        import('../adapters/eventbridge/eventbridge-publisher'),
      ]);
      return new EventBridgePublisher({ client, eventBusName, onPublishFailure });
    });
    return { publish: async (events) => (await publisher()).publish(events) };
  }

  /** Puts failure notices on `eventBusName` (`EventBridgeFailureDestination`). */
  failureDestination(eventBusName: string): FailureDestination {
    const destination = once(async () => {
      const [client, { EventBridgeFailureDestination }] = await Promise.all([
        this.client(),
        import('../adapters/eventbridge/eventbridge-failure-destination'),
      ]);
      return new EventBridgeFailureDestination(client, eventBusName);
    });
    return { send: async (notice) => (await destination()).send(notice) };
  }
}

/** `load` on the first call; its promise on every call. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    loaded ??= load();
    return loaded;
  };
}
