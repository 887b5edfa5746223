import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { LIMITS } from '../core/limits';

export interface SundialQueuesProps {
  readonly visibilityTimeoutSeconds: number;
  readonly maxReceiveCount: number;
}

/** The longest SQS keeps a message: nothing that waits for a slot expires before its time. */
const RETENTION = Duration.days(LIMITS.queueRetentionDays);

/**
 * The jobs queue, the queue for critical jobs (consumed by its own event source mapping, so a backlog
 * of normal jobs does not hold them back: ADR 0003 §6), each with its dead-letter queue, and the
 * dead-letter queue of the tick rule's target.
 *
 * - Encryption: SSE-SQS (SQS-managed keys). No KMS key to run, no KMS request charges, and EventBridge
 *   can deliver to it (it cannot to a queue encrypted with the AWS-managed `aws/sqs` key).
 * - TLS only (`enforceSSL`: a queue policy denies `aws:SecureTransport` false).
 * - Retention 14 days on all of them: a message that moves to a DLQ keeps its first enqueue time, so a
 *   DLQ shorter-lived than its source would drop messages on arrival.
 * - Queues hold only transient messages and are always destroyed with the stack.
 */
export class SundialQueues extends Construct {
  /** Job messages from the tick and the admin API to the worker. */
  readonly queue: sqs.Queue;
  /** Job messages received `maxReceiveCount` times without being deleted. */
  readonly deadLetterQueue: sqs.Queue;
  /** Critical job messages (`priority: critical`), configured as the jobs queue. */
  readonly criticalQueue: sqs.Queue;
  /** Critical job messages received `maxReceiveCount` times without being deleted. */
  readonly criticalDeadLetterQueue: sqs.Queue;
  /** Tick events EventBridge could not deliver to the tick Lambda. */
  readonly tickDeadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: SundialQueuesProps) {
    super(scope, id);
    const common: sqs.QueueProps = {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: RETENTION,
      removalPolicy: RemovalPolicy.DESTROY,
    };
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', common);
    this.queue = new sqs.Queue(this, 'JobsQueue', {
      ...common,
      visibilityTimeout: Duration.seconds(props.visibilityTimeoutSeconds),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    });
    this.criticalDeadLetterQueue = new sqs.Queue(this, 'CriticalDeadLetterQueue', common);
    this.criticalQueue = new sqs.Queue(this, 'CriticalJobsQueue', {
      ...common,
      visibilityTimeout: Duration.seconds(props.visibilityTimeoutSeconds),
      deadLetterQueue: { queue: this.criticalDeadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    });
    this.tickDeadLetterQueue = new sqs.Queue(this, 'TickDeadLetterQueue', common);
  }
}
