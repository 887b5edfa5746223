import { Stack } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { SundialFailureDestination } from './props';
import { SundialPropsError } from './settings';

/**
 * A task's failure destination: the worker's environment (`SUNDIAL_FAILURE_DESTINATIONS`, read by
 * lib/runtime/failure-destinations.ts) and its permission, `sqs:SendMessage` on exactly that queue or
 * `events:PutEvents` on exactly that bus.
 */
export function failureDestinationsEnvironment(
  scope: Construct,
  destinations: Readonly<Record<string, SundialFailureDestination>>,
  taskIds: readonly string[],
): Record<string, string> {
  const unknown = Object.keys(destinations).filter((task) => !taskIds.includes(task));
  if (unknown.length > 0) {
    throw new SundialPropsError(
      unknown.map(
        (task) =>
          `failureDestinations: '${task}' is not a task in functionsDir; tasks: ${taskIds.join(', ') || '(none)'}`,
      ),
    );
  }
  // The runtime sends without MessageGroupId, which a FIFO queue refuses: every notice would be lost
  const fifo = Object.entries(destinations).filter(
    ([, destination]) => 'queue' in destination && destination.queue.fifo,
  );
  if (fifo.length > 0) {
    throw new SundialPropsError(
      fifo.map(
        ([task]) =>
          `failureDestinations: '${task}' is a FIFO queue; use a standard queue (notices carry no message group)`,
      ),
    );
  }
  if (Object.keys(destinations).length === 0) return {};
  const config = Object.fromEntries(
    Object.entries(destinations).map(([task, destination]) => [
      task,
      'queue' in destination
        ? { queueUrl: destination.queue.queueUrl }
        : // Its ARN: a bus of another account or region, which a bare name would miss
          { eventBusName: destination.eventBus.eventBusArn },
    ]),
  );
  return { SUNDIAL_FAILURE_DESTINATIONS: Stack.of(scope).toJsonString(config) };
}

/** Lets the worker send to each destination, and to nothing else. */
export function grantFailureDestinations(
  role: iam.IRole,
  destinations: Readonly<Record<string, SundialFailureDestination>>,
): void {
  for (const destination of Object.values(destinations)) {
    if ('queue' in destination) grantSendMessage(role, destination.queue);
    else grantPutEvents(role, destination.eventBus);
  }
}

function grantSendMessage(role: iam.IRole, queue: sqs.IQueue): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }),
  );
  // An encrypted queue needs its key to take a message.
  queue.encryptionMasterKey?.grant(role, 'kms:GenerateDataKey', 'kms:Decrypt');
}

function grantPutEvents(role: iam.IRole, bus: events.IEventBus): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({ actions: ['events:PutEvents'], resources: [bus.eventBusArn] }),
  );
}
