import type { AddressInfo } from 'node:net';
import { buildApp } from 'fauxqs';

/** What the emulator holds in a queue, by state (as fauxqs's inspection endpoint reports it). */
export interface QueueInspection {
  messages: {
    ready: { body: string }[];
    delayed: { body: string; delayUntil?: number }[];
    inflight: { message: { body: string } }[];
  };
}

export interface SqsEmulator {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  port: number;
  /** The queue's messages without receiving them; undefined for an unknown queue. */
  inspectQueue(name: string): Promise<QueueInspection | undefined>;
  stop(): Promise<void>;
}

/**
 * The SQS emulator (fauxqs) on 127.0.0.1 only. `startFauxqs` listens on 0.0.0.0 whatever its `host`
 * option says (that option only shapes queue URLs), which would let anyone on the network read the
 * jobs; so its app is built with `buildApp` and bound to loopback here.
 *
 * @example
 * const sqs = await startSqsEmulator();
 * // new SQSClient({ endpoint: sqs.endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS })
 * await sqs.stop();
 */
export async function startSqsEmulator(options: { port?: number } = {}): Promise<SqsEmulator> {
  const app = buildApp({ logger: false, host: '127.0.0.1' });
  await app.listen({ port: options.port ?? 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    async inspectQueue(name) {
      const response = await app.inject({
        method: 'GET',
        url: `/_fauxqs/queues/${encodeURIComponent(name)}`,
      });
      return response.statusCode === 200 ? (response.json() as QueueInspection) : undefined;
    },
    stop: () => app.close(),
  };
}
