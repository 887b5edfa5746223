import { RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SHARDS } from '../../lib/adapters/dynamodb/table-design';
import { propsFromContext } from '../../lib/infra/context';
import { resolveSettings, SundialPropsError } from '../../lib/infra/settings';
import { Sundial } from '../../lib/infra/sundial';
import { BAD_FUNCTIONS, problemsOf, SYNTH_TIMEOUT_MS, testApp } from './support';

describe('resolveSettings', () => {
  it('fills in the documented defaults', () => {
    const settings = resolveSettings({}, []);

    expect(settings).toEqual({
      shards: DEFAULT_SHARDS,
      dispatchers: 8,
      workerBatchSize: 10,
      workerMaxConcurrency: 10,
      criticalWorkerMaxConcurrency: 2,
      workerTimeoutSeconds: 90,
      workerMemorySize: 1024,
      defaultResultTtlSeconds: null,
      removalPolicy: RemovalPolicy.RETAIN,
      billing: { mode: 'on-demand' },
      tracing: true,
      fireLagP99ThresholdMs: 5000,
      tickReservedConcurrency: 3,
      maxReceiveCount: 500,
      logRetention: logs.RetentionDays.ONE_MONTH,
      logLevel: 'info',
      maxScheduleRemovalPercent: 50,
      keepSchedulesOnDelete: false,
      queueVisibilityTimeoutSeconds: 540,
    });
  });

  it("gives the critical queue's event source one invocation per slot of the limited tasks beside its share, unless set", () => {
    const tasks = [
      { id: 'exports', timeoutSeconds: 60, maxRunningJobs: 5 },
      { id: 'sync', timeoutSeconds: 60, maxRunningJobs: 3 },
      { id: 'plain', timeoutSeconds: 60 },
    ];

    expect(resolveSettings({}, tasks).criticalWorkerMaxConcurrency).toBe(10);
    expect(resolveSettings({ criticalWorkerMaxConcurrency: 4 }, tasks).criticalWorkerMaxConcurrency).toBe(4);
    expect(
      resolveSettings({}, [{ id: 'huge', timeoutSeconds: 60, maxRunningJobs: 5_000 }])
        .criticalWorkerMaxConcurrency,
    ).toBe(1_000);
  });

  it('sizes the worker timeout to the longest task plus the margin, and the visibility timeout to six times it', () => {
    const settings = resolveSettings({}, [
      { id: 'quick', timeoutSeconds: 60 },
      { id: 'long-report', timeoutSeconds: 300 },
    ]);

    expect(settings.workerTimeoutSeconds).toBe(330);
    expect(settings.queueVisibilityTimeoutSeconds).toBe(1980);
  });

  it('lists every invalid prop at once, each with its name and the allowed range', () => {
    const problems = problemsOf(() =>
      resolveSettings(
        {
          shards: 0,
          dispatchers: 0,
          workerBatchSize: 11,
          workerMaxConcurrency: 1,
          criticalWorkerMaxConcurrency: 1001,
          workerMemorySize: 64,
          tickReservedConcurrency: 1,
          maxReceiveCount: 5,
          fireLagP99ThresholdMs: -1,
          removalPolicy: RemovalPolicy.SNAPSHOT,
          logLevel: 'verbose' as never,
          maxScheduleRemovalPercent: 101,
        },
        [],
      ),
    );

    expect(problems).toEqual([
      expect.stringMatching(
        /^tickReservedConcurrency must be an integer from 2 to 1000, got 1 \(ticks overlap safely/,
      ),
      'removalPolicy SNAPSHOT is not supported by DynamoDB tables: use RETAIN or DESTROY',
      "logLevel must be one of debug, info, warn, error, got 'verbose'",
      'shards must be an integer from 1 to 1000, got 0',
      'dispatchers must be an integer from 1 to 1000, got 0',
      'workerBatchSize must be an integer from 1 to 10, got 11',
      'workerMaxConcurrency must be an integer from 2 to 1000, got 1',
      'criticalWorkerMaxConcurrency must be an integer from 2 to 1000, got 1001',
      'workerMemorySize must be an integer from 128 to 10240, got 64',
      'fireLagP99ThresholdMs must be an integer from 1 to 3600000, got -1',
      expect.stringMatching(/^maxReceiveCount must be an integer from 10 to 1000, got 5/),
      'maxScheduleRemovalPercent must be an integer from 0 to 100, got 101',
    ]);
  });

  it('fills in the provisioned target utilisation and lists every bad capacity bound', () => {
    const billing = {
      mode: 'provisioned',
      readCapacity: { min: 5, max: 50 },
      writeCapacity: { min: 5, max: 100 },
    } as const;
    expect(resolveSettings({ billing }, []).billing).toEqual({ ...billing, targetUtilizationPercent: 70 });

    const bad = () =>
      resolveSettings(
        {
          billing: {
            mode: 'provisioned',
            readCapacity: { min: 0, max: 50 },
            writeCapacity: { min: 200, max: 100 },
            targetUtilizationPercent: 95,
          },
        },
        [],
      );

    expect(bad).toThrow(SundialPropsError);
    expect(() => bad()).toThrow(
      expect.objectContaining({
        problems: [
          'billing.readCapacity.min must be an integer from 1 to 40000, got 0',
          'billing.writeCapacity.min (200) must not exceed billing.writeCapacity.max (100)',
          'billing.targetUtilizationPercent must be an integer from 20 to 90, got 95',
        ],
      }),
    );
  });

  it('rejects more dispatchers than shards (each reads whole shards)', () => {
    const problems = problemsOf(() => resolveSettings({ shards: 8, dispatchers: 9 }, []));

    expect(problems).toEqual([
      'dispatchers (9) must be at most shards (8): each dispatcher reads whole shards',
    ]);
  });

  it('rejects a worker timeout that leaves no margin beyond the longest task, naming the task', () => {
    const tasks = [{ id: 'long-report', timeoutSeconds: 300 }];

    expect(problemsOf(() => resolveSettings({ workerTimeoutSeconds: 310 }, tasks))).toEqual([
      "task 'long-report' has timeoutSeconds 300, but workerTimeoutSeconds (310) leaves less than 30 s beyond it: lower the task's timeoutSeconds to at most 280 or raise workerTimeoutSeconds to 330",
    ]);
    expect(problemsOf(() => resolveSettings({}, [{ id: 'crawl', timeoutSeconds: 890 }]))).toEqual([
      "task 'crawl' has timeoutSeconds 890, but the longest Lambda timeout (900 s) leaves less than 30 s beyond it: lower the task's timeoutSeconds to at most 870",
    ]);
  });

  it('refuses a deploy-time token where other resources are sized from the value, naming the prop', () => {
    const token = Token.asNumber({ Ref: 'Param' });

    expect(problemsOf(() => resolveSettings({ workerTimeoutSeconds: token }, []))).toEqual([
      "workerTimeoutSeconds: must be a number known at synth, not a deploy-time token (it sizes the queue's visibility timeout)",
    ]);
  });

  it('accepts null tick reserved concurrency (nothing reserved) and lets deploy-time tokens through', () => {
    const settings = resolveSettings(
      { tickReservedConcurrency: null, shards: Token.asNumber({ Ref: 'Shards' }) },
      [],
    );

    expect(settings.tickReservedConcurrency).toBeNull();
    expect(Token.isUnresolved(settings.shards)).toBe(true);
  });
});

describe('Sundial prop validation at synth', () => {
  it(
    'fails the synth with the props problems and the task problems together',
    () => {
      const stack = new Stack(testApp(), 'Test');

      const problems = problemsOf(
        () => new Sundial(stack, 'Sundial', { functionsDir: BAD_FUNCTIONS, shards: 0 }),
      );

      expect(problems).toEqual([
        expect.stringMatching(
          /^test\/infra\/fixtures\/bad-functions\/Send_Report\.ts: task id 'Send_Report' must be kebab-case/,
        ),
        "test/infra/fixtures/bad-functions/misspelt-option.ts: unknown option 'maxRuningJobs': did you mean 'maxRunningJobs'? (defineTask knows handler, payloadSchema, maxRunningJobs, rateLimit, misfireGraceSeconds, timeoutSeconds, retry, resultTtlSeconds, events, schedules)",
        'test/infra/fixtures/bad-functions/no-default.ts: has no default export; export default defineTask({ ... })',
        'test/infra/fixtures/bad-functions/throws-on-import.ts: failed to import: SECRET_NAME is not set',
        expect.stringMatching(/^task 'too-slow' has timeoutSeconds 890, but the longest Lambda timeout/),
        'shards must be an integer from 1 to 1000, got 0',
      ]);
    },
    SYNTH_TIMEOUT_MS,
  );
});

describe('propsFromContext (cdk.json "sundial")', () => {
  it('turns JSON values into props', () => {
    const stack = new Stack(testApp(), 'Test');

    const props = propsFromContext(
      stack,
      {
        shards: 8,
        dispatchers: 4,
        removalPolicy: 'destroy',
        logRetentionDays: 7,
        tickReservedConcurrency: null,
        alarmTopicArn: 'arn:aws:sns:us-east-1:123456789012:ops',
        billing: { mode: 'provisioned', readCapacity: { min: 1, max: 2 }, writeCapacity: { min: 1, max: 2 } },
      },
      '/project',
    );

    expect(props).toMatchObject({
      shards: 8,
      dispatchers: 4,
      billing: { mode: 'provisioned', readCapacity: { min: 1, max: 2 }, writeCapacity: { min: 1, max: 2 } },
      removalPolicy: RemovalPolicy.DESTROY,
      logRetention: 7,
      tickReservedConcurrency: null,
    });
    expect(props.alarmTopic?.topicArn).toBe('arn:aws:sns:us-east-1:123456789012:ops');
  });

  it('reads the object from a string, as `cdk synth -c sundial=…` passes it', () => {
    const stack = new Stack(testApp(), 'Test');

    expect(propsFromContext(stack, '{"workerMaxConcurrency":20}', '/project')).toEqual({
      workerMaxConcurrency: 20,
    });
    expect(problemsOf(() => propsFromContext(stack, '{workerMaxConcurrency:20}', '/project'))).toEqual([
      expect.stringMatching(/^the "sundial" context is not valid JSON: /),
    ]);
  });

  it('reports unknown keys and wrong types all at once', () => {
    const stack = new Stack(testApp(), 'Test');

    const problems = problemsOf(() =>
      propsFromContext(
        stack,
        { shard: 8, dispatchers: '4', removalPolicy: 'keep', tracing: 'yes', lookaheadSeconds: 90 },
        '/project',
      ),
    );

    expect(problems).toEqual([
      'unknown "sundial" context key \'shard\'',
      'unknown "sundial" context key \'lookaheadSeconds\'',
      '"sundial" context \'dispatchers\' must be a number, got "4"',
      '"sundial" context \'removalPolicy\' must be "retain" or "destroy", got "keep"',
      '"sundial" context \'tracing\' must be true or false',
    ]);
  });
});
