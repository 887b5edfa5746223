import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import type { DesiredSchedule } from '../../../lib/core/code-schedules/desired';
import type { CustomResourceResponse } from '../../../lib/runtime/handlers/code-schedules';

const STACK_ID =
  'arn:aws:cloudformation:us-east-1:123456789012:stack/Shop/5b918d10-cd98-11ea-90d5-0a9cd3354c10';
const SERVICE_TOKEN = 'arn:aws:lambda:us-east-1:123456789012:function:Shop-SundialSchedulesFunction-AbC123';
const LOGICAL_ID = 'SundialCodeSchedules2A3F9B1C';

/** The custom resource's properties as the stack writes them (lib/infra/code-schedules.ts): all strings. */
export interface Properties {
  schedules: readonly DesiredSchedule[];
  maxRemovalPercent?: number;
  onDelete?: 'remove' | 'keep';
}

function resourceProperties(properties: Properties): Record<string, string> {
  return {
    ServiceToken: SERVICE_TOKEN,
    Schedules: JSON.stringify(properties.schedules),
    MaxRemovalPercent: String(properties.maxRemovalPercent ?? 50),
    OnDelete: properties.onDelete ?? 'remove',
  };
}

/**
 * A request as CloudFormation sends it to a custom resource's Lambda: its fields, a fresh request id,
 * and a pre-signed response URL (here on the local response endpoint, with the path and query shape of
 * the S3 one).
 */
export function cloudFormationRequest(
  type: 'Create' | 'Update' | 'Delete',
  responseEndpoint: string,
  properties: Properties,
  options: { old?: Properties; physicalResourceId?: string; requestId?: string } = {},
): CloudFormationCustomResourceEvent {
  const requestId = options.requestId ?? randomUUID();
  const key = encodeURIComponent(`${STACK_ID}|${LOGICAL_ID}|${requestId}`);
  const common = {
    ServiceToken: SERVICE_TOKEN,
    ResponseURL: `${responseEndpoint}/${key}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20261201T090000Z&X-Amz-SignedHeaders=host&X-Amz-Expires=7200&X-Amz-Credential=AKIAEXAMPLE%2F20261201%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=00`,
    StackId: STACK_ID,
    RequestId: requestId,
    LogicalResourceId: LOGICAL_ID,
    ResourceType: 'Custom::SundialSchedules',
    ResourceProperties: resourceProperties(properties),
  };
  const physicalResourceId = options.physicalResourceId ?? 'sundial-code-schedules';
  if (type === 'Create') return { ...common, RequestType: 'Create' } as CloudFormationCustomResourceEvent;
  if (type === 'Delete') {
    return {
      ...common,
      RequestType: 'Delete',
      PhysicalResourceId: physicalResourceId,
    } as CloudFormationCustomResourceEvent;
  }
  return {
    ...common,
    RequestType: 'Update',
    PhysicalResourceId: physicalResourceId,
    OldResourceProperties: resourceProperties(options.old ?? { schedules: [] }),
  } as CloudFormationCustomResourceEvent;
}

/** What arrived at the response endpoint: one PUT per answer. */
export interface ReceivedResponse {
  method: string;
  path: string;
  contentType: string | undefined;
  body: CustomResourceResponse;
}

/** A stand-in for S3's pre-signed URL on 127.0.0.1: records every response, answers 200. */
export async function startResponseEndpoint(): Promise<{
  url: string;
  responses: ReceivedResponse[];
  close(): Promise<void>;
}> {
  const responses: ReceivedResponse[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      responses.push({
        method: request.method ?? '',
        path: request.url ?? '',
        contentType: request.headers['content-type'],
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReceivedResponse['body'],
      });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    responses,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
