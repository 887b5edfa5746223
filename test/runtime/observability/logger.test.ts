import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../lib/runtime/observability/logger';
import { lambdaContext } from '../support';

function collectingLogger(level: 'debug' | 'info' | 'warn' | 'error' = 'debug') {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level, sink: (line) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('runtime logger', () => {
  it('logs an error with its stack and the chain of its causes', () => {
    // Prepare
    const { logger, lines } = collectingLogger();
    const cause = new Error('connection reset');
    cause.name = 'NetworkError';
    const error = new Error("the store did not answer 'finishJob' after retries", { cause });
    error.name = 'StoreUnavailableError';

    // Act
    logger.error('the result could not be stored', { jobId: 'job-1', error });

    // Assess
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      message: 'the result could not be stored',
      jobId: 'job-1',
      error: {
        name: 'StoreUnavailableError',
        message: "the store did not answer 'finishJob' after retries",
        stack: expect.stringContaining('logger.test.ts'),
        cause: {
          name: 'NetworkError',
          message: 'connection reset',
          stack: expect.stringContaining('NetworkError: connection reset'),
        },
      },
    });
  });

  it("logs only an error's name, message, stack and cause, never its other properties (SDK errors carry items)", () => {
    // Prepare: a failed condition returns the stored item, payload included
    const { logger, lines } = collectingLogger();
    const sdkError = Object.assign(new Error('The conditional request failed'), {
      name: 'ConditionalCheckFailedException',
      Item: { payload: { S: 'secret-token-123' } },
      $metadata: { httpStatusCode: 400 },
    });

    // Act
    logger.error('write failed', { error: new Error('unexpected', { cause: sdkError }) });

    // Assess
    const text = JSON.stringify(lines);
    expect(text).toContain('ConditionalCheckFailedException');
    expect(text).not.toContain('secret-token-123');
    expect(Object.keys(lines[0]?.error as object).sort()).toEqual(['cause', 'message', 'name', 'stack']);
  });

  it('logs an error whose causes come back to it once, each error of the loop once', () => {
    // Prepare
    const { logger, lines } = collectingLogger();
    const first = new Error('first');
    const second = new Error('second', { cause: first });
    first.cause = second;

    // Act
    logger.error('loop', { error: first });

    // Assess
    expect(lines[0]?.error).toEqual({
      name: 'Error',
      message: 'first',
      stack: expect.any(String),
      cause: { name: 'Error', message: 'second', stack: expect.any(String) },
    });
  });

  it('adds the Lambda context to every line of an invocation, child loggers included, and marks the cold start once', () => {
    // Prepare: an on-demand sandbox
    vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');
    const { logger, lines } = collectingLogger();
    const jobLogger = logger.child({ jobId: 'job-1' });

    // Act
    logger.addLambdaContext(lambdaContext('sundial-worker', 'request-1'));
    logger.info('first invocation');
    jobLogger.warn('still the first invocation');
    logger.addLambdaContext(lambdaContext('sundial-worker', 'request-2'));
    logger.child({ jobId: 'job-2' }).info('second invocation');

    // Assess
    expect(lines).toEqual([
      expect.objectContaining({
        function_request_id: 'request-1',
        function_name: 'sundial-worker',
        cold_start: true,
      }),
      expect.objectContaining({ function_request_id: 'request-1', cold_start: true, jobId: 'job-1' }),
      expect.objectContaining({ function_request_id: 'request-2', cold_start: false, jobId: 'job-2' }),
    ]);
  });

  it('writes one JSON line per call with level, timestamp, message and the fields, and drops lines below its level', () => {
    // Prepare
    const { logger, lines } = collectingLogger('warn');

    // Act
    logger.info('dropped');
    logger.child({ task: 'report' }).warn('kept', { attempt: 2 });

    // Assess
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'WARN',
        message: 'kept',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        task: 'report',
        attempt: 2,
      }),
    ]);
  });
});
