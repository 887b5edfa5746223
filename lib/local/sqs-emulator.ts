import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from 'fauxqs';
import { refuseBrowserCrossSite } from './request-guard';

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
  const inspectionToken = randomUUID();
  app.addHook('onRequest', async (request: { raw: IncomingMessage }, reply: Refusal) => {
    const refused = refusedRequest(request.raw, inspectionToken);
    if (refused) await reply.code(refused.status).send({ message: refused.message });
  });
  await app.listen({ port: options.port ?? 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    async inspectQueue(name) {
      const response = await app.inject({
        method: 'GET',
        url: `/_fauxqs/queues/${encodeURIComponent(name)}`,
        headers: { host: `127.0.0.1:${port}`, [INSPECTION_HEADER]: inspectionToken },
      });
      return response.statusCode === 200 ? (response.json() as QueueInspection) : undefined;
    },
    stop: () => app.close(),
  };
}

/** The part of fastify's reply the guard uses. */
interface Refusal {
  code(status: number): { send(body: unknown): unknown };
}

const INSPECTION_HEADER = 'x-sundial-inspection';
/** The only protocol the AWS SDK speaks to SQS: not a content type a web page can send without asking. */
const SQS_JSON_PROTOCOL = 'application/x-amz-json-1.0';

/**
 * fauxqs answers any request, SNS's form-encoded actions included: a page on another site could post a
 * form that subscribes the jobs queue to a topic and publishes a job into it, which the local workers
 * would run. Only this machine's SDK clients get through: the Host and Origin of this endpoint, the SQS
 * JSON protocol, and the inspection paths only from `inspectQueue` (its token).
 */
function refusedRequest(
  request: IncomingMessage,
  inspectionToken: string,
): { status: number; message: string } | undefined {
  const crossSite = refuseBrowserCrossSite(request, request.socket.localPort ?? 0);
  if (crossSite && request.headers[INSPECTION_HEADER] !== inspectionToken)
    return { status: 403, message: crossSite };
  const path = request.url ?? '/';
  if (path.startsWith('/_fauxqs')) {
    return request.headers[INSPECTION_HEADER] === inspectionToken
      ? undefined
      : { status: 403, message: 'inspection is for the local platform only' };
  }
  const type = request.headers['content-type'] ?? '';
  if (request.method !== 'POST' || !type.startsWith(SQS_JSON_PROTOCOL)) {
    return { status: 415, message: `only SQS requests in ${SQS_JSON_PROTOCOL} are served` };
  }
  return undefined;
}
