import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  GLOBAL_SECONDARY_INDEXES,
  TABLE_KEYS,
  TTL_ATTRIBUTE,
} from '../../lib/adapters/dynamodb/table-design';
import { LIMITS } from '../../lib/core/limits';
import {
  customizedStack,
  defaultStack,
  logicalId,
  resourcesOf,
  SYNTH_TIMEOUT_MS,
  type Synthesized,
} from './support';

const FOURTEEN_DAYS = 14 * 24 * 3600;

let synth: Synthesized;
beforeAll(() => {
  synth = defaultStack();
}, SYNTH_TIMEOUT_MS);

describe('stack', () => {
  it(
    'has no cyclic dependencies between its resources',
    () => {
      expect(() => Template.fromStack(synth.stack)).not.toThrow();
    },
    SYNTH_TIMEOUT_MS,
  );
});

describe('table', () => {
  it('has the table design keys, on-demand billing, TTL, point-in-time recovery and KMS encryption', () => {
    synth.template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: TABLE_KEYS.partitionKey.name, KeyType: 'HASH' },
        { AttributeName: TABLE_KEYS.sortKey.name, KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
      DeletionProtectionEnabled: true,
    });
  });

  it('has every sparse index of the table design, with its keys and projection', () => {
    const expected = GLOBAL_SECONDARY_INDEXES.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
        ...(index.sortKey ? [{ AttributeName: index.sortKey.name, KeyType: 'RANGE' }] : []),
      ],
      Projection:
        typeof index.projection === 'string'
          ? { ProjectionType: index.projection }
          : { ProjectionType: 'INCLUDE', NonKeyAttributes: index.projection.include },
    }));

    synth.template.hasResourceProperties('AWS::DynamoDB::Table', { GlobalSecondaryIndexes: expected });
  });

  it('is retained with the stack by default', () => {
    synth.template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });
});

describe('queues', () => {
  it('sends job messages to a DLQ after maxReceiveCount receives, and hides in-flight ones for 6 × the worker timeout', () => {
    const dlq = logicalId(synth.template, 'AWS::SQS::Queue', 'SundialQueuesDeadLetterQueue');

    synth.template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 6 * 330,
      MessageRetentionPeriod: FOURTEEN_DAYS,
      SqsManagedSseEnabled: true,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] }, maxReceiveCount: 500 },
    });
  });

  it('sends critical job messages to their own DLQ, configured as the jobs queue', () => {
    const queue = logicalId(synth.template, 'AWS::SQS::Queue', 'SundialQueuesCriticalJobsQueue');
    const dlq = logicalId(synth.template, 'AWS::SQS::Queue', 'SundialQueuesCriticalDeadLetterQueue');

    expect(resourcesOf(synth.template, 'AWS::SQS::Queue')[queue]?.Properties).toMatchObject({
      VisibilityTimeout: 6 * 330,
      MessageRetentionPeriod: FOURTEEN_DAYS,
      SqsManagedSseEnabled: true,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] }, maxReceiveCount: 500 },
    });
  });

  it('encrypts all five queues, keeps messages 14 days and refuses requests without TLS', () => {
    const queues = resourcesOf(synth.template, 'AWS::SQS::Queue');
    expect(Object.keys(queues)).toHaveLength(5);
    for (const queue of Object.values(queues)) {
      expect(queue.Properties).toMatchObject({
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: FOURTEEN_DAYS,
      });
    }
    const policies = resourcesOf(synth.template, 'AWS::SQS::QueuePolicy');
    const denied = Object.values(policies).flatMap((policy) =>
      (
        policy.Properties.PolicyDocument as {
          Statement: { Effect: string; Condition?: unknown; Resource: unknown }[];
        }
      ).Statement.filter(
        (statement) =>
          statement.Effect === 'Deny' &&
          JSON.stringify(statement.Condition) ===
            JSON.stringify({ Bool: { 'aws:SecureTransport': 'false' } }),
      ),
    );
    expect(denied).toHaveLength(5);
  });
});

describe('tick', () => {
  it('runs every minute through an EventBridge rule with retries and a DLQ', () => {
    const tick = logicalId(synth.template, 'AWS::Lambda::Function', 'SundialTickFunction');
    const dlq = logicalId(synth.template, 'AWS::SQS::Queue', 'SundialQueuesTickDeadLetterQueue');

    synth.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [
        {
          Arn: { 'Fn::GetAtt': [tick, 'Arn'] },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [dlq, 'Arn'] } },
          RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 60 },
        },
      ],
    });
  });

  it('reserves enough concurrency for ticks to overlap, and does not retry a failed tick', () => {
    const tick = logicalId(synth.template, 'AWS::Lambda::Function', 'SundialTickFunction');

    synth.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Sundial tick'),
      ReservedConcurrentExecutions: 3,
      Timeout: 60,
    });
    synth.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: tick },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 120,
    });
  });
});

describe('admin', () => {
  it('runs long enough for the longest result wait, with half its timeout to spare', () => {
    const admin = Object.values(resourcesOf(synth.template, 'AWS::Lambda::Function')).find((fn) =>
      String(fn.Properties.Description).startsWith('Sundial admin API'),
    );

    expect(admin?.Properties.Timeout).toBeGreaterThanOrEqual(2 * LIMITS.maxResultWaitSeconds);
  });
});

describe('worker', () => {
  it('consumes the jobs queue with partial batch failures, the batch size and a concurrency ceiling', () => {
    const worker = logicalId(synth.template, 'AWS::Lambda::Function', 'SundialWorkerFunction');
    const queue = logicalId(synth.template, 'AWS::SQS::Queue', 'SundialQueuesJobsQueue');

    synth.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: worker },
      EventSourceArn: { 'Fn::GetAtt': [queue, 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 10 },
    });
  });

  it("consumes the critical queue through an event source of its own, its ceiling its share plus the limited tasks' slots", () => {
    const worker = logicalId(synth.template, 'AWS::Lambda::Function', 'SundialWorkerFunction');
    const queue = logicalId(synth.template, 'AWS::SQS::Queue', 'SundialQueuesCriticalJobsQueue');

    synth.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: worker },
      EventSourceArn: { 'Fn::GetAtt': [queue, 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      // 2 for critical jobs, and 2 for the woken jobs of functions/slow-task.ts (maxRunningJobs 2)
      ScalingConfig: { MaximumConcurrency: 4 },
    });
    expect(Object.keys(resourcesOf(synth.template, 'AWS::Lambda::EventSourceMapping'))).toHaveLength(2);
  });

  it('times out 30 s after the longest task (long-report, 300 s)', () => {
    synth.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Sundial worker'),
      Timeout: 330,
      MemorySize: 1024,
    });
  });
});

describe('functions', () => {
  it('run Node 22 on arm64 with tracing, their own log group and the runtime configuration', () => {
    const functions = resourcesOf(synth.template, 'AWS::Lambda::Function');
    expect(Object.keys(functions)).toHaveLength(5); // tick, dispatcher, worker, admin, schedules
    const table = logicalId(synth.template, 'AWS::DynamoDB::Table', 'SundialTable');
    const queue = logicalId(synth.template, 'AWS::SQS::Queue', 'SundialQueuesJobsQueue');
    const critical = logicalId(synth.template, 'AWS::SQS::Queue', 'SundialQueuesCriticalJobsQueue');

    for (const fn of Object.values(functions)) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogGroup: { Ref: expect.stringMatching(/Logs/) } },
        Environment: {
          Variables: expect.objectContaining({
            NODE_OPTIONS: '--enable-source-maps',
            SUNDIAL_TABLE_NAME: { Ref: table },
            SUNDIAL_QUEUE_URL: { Ref: queue },
            SUNDIAL_CRITICAL_QUEUE_URL: { Ref: critical },
            SUNDIAL_SHARDS: '16',
            SUNDIAL_LOG_LEVEL: 'info',
            SUNDIAL_METRICS_NAMESPACE: 'Sundial',
          }),
        },
      });
    }
  });

  /** One environment variable of the function whose logical id starts with `prefix`. */
  const variableOf = (prefix: string, name: string) => {
    const fn = resourcesOf(synth.template, 'AWS::Lambda::Function')[
      logicalId(synth.template, 'AWS::Lambda::Function', prefix)
    ];
    const environment = fn?.Properties.Environment as { Variables: Record<string, unknown> } | undefined;
    return environment?.Variables[name];
  };

  it('tell every function the ARN of the bus (job events from the worker, schedule events from the tick and the admin API)', () => {
    const bus = logicalId(synth.template, 'AWS::Events::EventBus', 'SundialEventBus');
    const busOf = (prefix: string) => variableOf(prefix, 'SUNDIAL_EVENT_BUS_NAME');

    // An ARN, not a name: a bus of another account or region (`fromEventBusArn`) is reached too
    const arn = { 'Fn::GetAtt': [bus, 'Arn'] };
    expect(busOf('SundialWorkerFunction')).toEqual(arn);
    expect(busOf('SundialTickFunction')).toEqual(arn);
    expect(busOf('SundialAdminFunction')).toEqual(arn);
  });

  it('tell the tick the limits of each task as deployed (it bundles no task code), and no other function', () => {
    const limitsOf = (prefix: string) => variableOf(prefix, 'SUNDIAL_TASK_LIMITS');

    expect(JSON.parse(String(limitsOf('SundialTickFunction')))).toEqual({
      'quick-task': { maxRunningJobs: 2, rateLimit: null },
    });
    expect(limitsOf('SundialWorkerFunction')).toBeUndefined();
    expect(limitsOf('SundialAdminFunction')).toBeUndefined();
  });

  it('tell only the worker the DLQ, where it moves messages it cannot read', () => {
    const dlqOf = (prefix: string) => variableOf(prefix, 'SUNDIAL_DEAD_LETTER_QUEUE_URL');

    expect(dlqOf('SundialWorkerFunction')).toEqual({
      Ref: logicalId(synth.template, 'AWS::SQS::Queue', 'SundialQueuesDeadLetterQueue'),
    });
    expect(dlqOf('SundialTickFunction')).toBeUndefined();
    expect(dlqOf('SundialAdminFunction')).toBeUndefined();
  });

  it('keep logs a month in one explicit log group each', () => {
    const groups = resourcesOf(synth.template, 'AWS::Logs::LogGroup');

    expect(Object.values(groups).map((group) => group.Properties.RetentionInDays)).toEqual([
      30, 30, 30, 30, 30,
    ]);
  });

  it('expose no function URL: the admin API is invoked with IAM only', () => {
    synth.template.resourceCountIs('AWS::Lambda::Url', 0);
    const permissions = resourcesOf(synth.template, 'AWS::Lambda::Permission');
    expect(Object.values(permissions).map((permission) => permission.Properties.Principal)).toEqual([
      'events.amazonaws.com',
    ]);
  });
});

describe('outputs', () => {
  it('give the admin function, the table, both queue URLs, the bus and the dashboard', () => {
    const outputs = synth.template.findOutputs('*');

    expect(Object.keys(outputs).sort()).toEqual([
      'AdminFunctionName',
      'DashboardName',
      'DeadLetterQueueUrl',
      'EventBusName',
      'QueueUrl',
      'TableName',
    ]);
    expect(outputs.AdminFunctionName?.Value).toEqual({
      Ref: logicalId(synth.template, 'AWS::Lambda::Function', 'SundialAdminFunction'),
    });
  });
});

describe('with every setting away from its default', () => {
  let other: Synthesized;
  beforeAll(() => {
    other = customizedStack();
  }, SYNTH_TIMEOUT_MS);

  it('drops deletion protection and deletes the table when the removal policy is DESTROY', () => {
    other.template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
    });
  });

  it('ticks every minute, and follows batch size, concurrency, no reservation and no tracing', () => {
    other.template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 minute)' });
    other.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 5,
      ScalingConfig: { MaximumConcurrency: 50 },
    });
    other.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 5,
      ScalingConfig: { MaximumConcurrency: 5 },
    });
    for (const fn of Object.values(resourcesOf(other.template, 'AWS::Lambda::Function'))) {
      expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
      expect(fn.Properties.TracingConfig).toBeUndefined();
    }
  });

  it('provisions the table and every index at the lower bounds, auto scaled between the bounds', () => {
    const table = Object.values(resourcesOf(other.template, 'AWS::DynamoDB::Table'))[0]?.Properties ?? {};
    expect(table.BillingMode).toBeUndefined();
    expect(table.ProvisionedThroughput).toEqual({ ReadCapacityUnits: 5, WriteCapacityUnits: 10 });
    for (const index of table.GlobalSecondaryIndexes as { ProvisionedThroughput: unknown }[]) {
      expect(index.ProvisionedThroughput).toEqual({ ReadCapacityUnits: 5, WriteCapacityUnits: 10 });
    }

    const targets = Object.values(resourcesOf(other.template, 'AWS::ApplicationAutoScaling::ScalableTarget'));
    const dimensions = targets.map((target) => [
      target.Properties.ScalableDimension,
      target.Properties.MinCapacity,
      target.Properties.MaxCapacity,
    ]);
    const indexes = GLOBAL_SECONDARY_INDEXES.length;
    expect(dimensions.filter(([d]) => d === 'dynamodb:table:ReadCapacityUnits')).toEqual([
      ['dynamodb:table:ReadCapacityUnits', 5, 50],
    ]);
    expect(dimensions.filter(([d]) => d === 'dynamodb:table:WriteCapacityUnits')).toEqual([
      ['dynamodb:table:WriteCapacityUnits', 10, 200],
    ]);
    expect(dimensions.filter(([d]) => d === 'dynamodb:index:ReadCapacityUnits')).toEqual(
      Array(indexes).fill(['dynamodb:index:ReadCapacityUnits', 5, 50]),
    );
    expect(dimensions.filter(([d]) => d === 'dynamodb:index:WriteCapacityUnits')).toEqual(
      Array(indexes).fill(['dynamodb:index:WriteCapacityUnits', 10, 200]),
    );
    other.template.resourcePropertiesCountIs(
      'AWS::ApplicationAutoScaling::ScalingPolicy',
      { TargetTrackingScalingPolicyConfiguration: Match.objectLike({ TargetValue: 60 }) },
      2 + 2 * indexes,
    );
  });

  it('publishes to the given bus instead of creating one', () => {
    other.template.resourceCountIs('AWS::Events::EventBus', 0);
  });
});
