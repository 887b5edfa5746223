import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { prettyLogSink } from '../../lib/local/pretty-log';
import { createLogger } from '../../lib/runtime/observability/logger';

function prettyLogger() {
  const printed: string[] = [];
  const logger = createLogger({ level: 'debug', sink: prettyLogSink((line) => printed.push(line)) });
  return { logger, printed };
}

beforeEach(() => {
  vi.useFakeTimers({ now: Date.parse('2026-03-02T10:00:01.250Z') });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the local platform prints runtime log lines', () => {
  it('as clock time, level, message and the fields, without the keys every line carries', () => {
    // Prepare
    const { logger, printed } = prettyLogger();

    // Act
    logger.child({ jobId: 'hello@1', task: 'send-report' }).info('job succeeded', { durationMs: 36 });

    // Assess
    expect(printed).toEqual(['10:00:01 info  job succeeded  jobId=hello@1 task=send-report durationMs=36']);
  });

  it("with an error's name and message on the line and its stack below it", () => {
    // Prepare
    const { logger, printed } = prettyLogger();
    const error = new TypeError('cannot read properties of undefined', { cause: new Error('reset') });

    // Act
    logger.error('processing the job failed', { jobId: 'a', error });

    // Assess
    const [line, ...stack] = printed.join('\n').split('\n');
    expect(line).toBe(
      '10:00:01 error processing the job failed  jobId=a error=TypeError: cannot read properties of undefined (cause: Error: reset)',
    );
    expect(stack[0]).toMatch(/^ {4}at /);
    expect(stack.join('\n')).toContain('pretty-log.test.ts');
  });

  it('drops the summaries of ticks that did nothing', () => {
    // Prepare
    const { logger, printed } = prettyLogger();

    // Act
    logger.info('tick finished', { schedulesProcessed: 0, jobsEnqueued: 0, errors: 0 });
    logger.info('tick finished', { schedulesProcessed: 2, jobsEnqueued: 3, errors: 0 });

    // Assess
    expect(printed).toEqual(['10:00:01 info  tick finished  schedulesProcessed=2 jobsEnqueued=3 errors=0']);
  });
});
