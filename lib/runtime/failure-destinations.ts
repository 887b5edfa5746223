import type { SQSClient } from '@aws-sdk/client-sqs';
import { SqsFailureDestination } from '../adapters/sqs/sqs-failure-destination';
import type { FailureDestination } from '../core/ports/failure-destination';

/** Where one task's jobs that failed for good go: an SQS queue (by URL) or an EventBridge bus (name or ARN). */
export type FailureDestinationConfig = { queueUrl: string } | { eventBusName: string };

export const FAILURE_DESTINATIONS_VARIABLE = 'SUNDIAL_FAILURE_DESTINATIONS';

/**
 * Reads `SUNDIAL_FAILURE_DESTINATIONS`: a JSON object from task id to `{ "queueUrl": … }` or
 * `{ "eventBusName": … }` (the construct writes it). Problems are added to `problems`, naming the variable.
 */
export function parseFailureDestinations(
  text: string | null,
  problems: string[],
): Readonly<Record<string, FailureDestinationConfig>> {
  if (text === null) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    problems.push(`${FAILURE_DESTINATIONS_VARIABLE} must be a JSON object`);
    return {};
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push(`${FAILURE_DESTINATIONS_VARIABLE} must be a JSON object from task id to destination`);
    return {};
  }
  const destinations: Record<string, FailureDestinationConfig> = {};
  for (const [task, value] of Object.entries(raw)) {
    const destination = destinationOf(value);
    if (destination) destinations[task] = destination;
    else {
      problems.push(
        `${FAILURE_DESTINATIONS_VARIABLE}: task '${task}' needs { "queueUrl": "<url>" } or { "eventBusName": "<name or ARN>" }`,
      );
    }
  }
  return destinations;
}

function destinationOf(value: unknown): FailureDestinationConfig | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const fields = value as Record<string, unknown>;
  const keys = Object.keys(fields);
  if (keys.length !== 1) return undefined;
  if (typeof fields.queueUrl === 'string' && fields.queueUrl !== '') return { queueUrl: fields.queueUrl };
  if (typeof fields.eventBusName === 'string' && fields.eventBusName !== '') {
    return { eventBusName: fields.eventBusName };
  }
  return undefined;
}

/** The adapters for the configured destinations, by task; `eventBus` makes the one of a bus. */
export function failureDestinationsOf(
  configs: Readonly<Record<string, FailureDestinationConfig>>,
  destinations: { sqs: SQSClient; eventBus: (eventBusName: string) => FailureDestination },
): ReadonlyMap<string, FailureDestination> {
  return new Map(
    Object.entries(configs).map(([task, config]) => [
      task,
      'queueUrl' in config
        ? new SqsFailureDestination(destinations.sqs, config.queueUrl)
        : destinations.eventBus(config.eventBusName),
    ]),
  );
}
