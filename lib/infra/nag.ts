import { Validations } from 'aws-cdk-lib';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { LAMBDA_RUNTIME, type SundialFunction } from './functions';

export interface AcknowledgedScopes {
  readonly functions: readonly SundialFunction[];
  readonly tickDeadLetterQueue: sqs.IQueue;
  readonly tracing: boolean;
}

/** Every cdk-nag acknowledgement of the construct, by rule, with its reason (docs/deploy.md repeats them). */
export const ACKNOWLEDGEMENTS = {
  xrayWildcard: {
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'Active tracing adds xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions, so their Resource must be "*". Acknowledged on the default policy only, which holds no other "*" (a test checks every "*" statement is X-Ray); table, queue and bus access live in separate policies.',
  },
  runtime: {
    id: 'AwsSolutions-L1',
    reason: `Pinned to ${LAMBDA_RUNTIME.name} on purpose: it is the Lambda runtime closest to the Node versions the code is developed and tested on (Node 20/22 locally and in CI), and it is supported by Lambda until 2027. Moving to a newer runtime is a deliberate, tested change, not one made by a library upgrade.`,
  },
  tickDeadLetterQueue: {
    id: 'AwsSolutions-SQS3',
    reason:
      "This queue is itself a dead-letter queue: the tick rule's EventBridge target sends undeliverable tick events to it. It has no DLQ of its own; its alarm fires on the first message.",
  },
} as const;

/** Acknowledges the deliberate cdk-nag (AwsSolutions) findings, each on the narrowest construct. */
export function acknowledgeFindings(scopes: AcknowledgedScopes): void {
  for (const fn of scopes.functions) {
    Validations.of(fn.function).acknowledge(ACKNOWLEDGEMENTS.runtime);
    const defaultPolicy = fn.role.node.tryFindChild('DefaultPolicy');
    if (scopes.tracing && defaultPolicy)
      Validations.of(defaultPolicy).acknowledge(ACKNOWLEDGEMENTS.xrayWildcard);
  }
  Validations.of(scopes.tickDeadLetterQueue).acknowledge(ACKNOWLEDGEMENTS.tickDeadLetterQueue);
}
