import type { LogItem } from '@aws-lambda-powertools/logger';
import { LogLevelThreshold, Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import type { LogLevel } from '../config';

export type LogFields = Record<string, unknown>;

/** Structured JSON logging: one line per call, `fields` merged in. Never pass payloads or return values. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}

/** The runtime's root logger: its lines (and its children's) also carry the Lambda invocation's context. */
export interface RuntimeLogger extends Logger {
  /**
   * Adds the invocation's request id, function name and cold start to every later line; a Lambda entry
   * calls it at the start of each invocation (a sandbox runs one invocation at a time).
   */
  addLambdaContext(context: Context): void;
}

export type LineSink = (line: string) => void;

export const stdoutSink: LineSink = (line) => {
  process.stdout.write(`${line}\n`);
};

/** Lines nobody reads (the local platform's and the simulation's metrics): not even made. */
export const discardLines: LineSink = () => {};

export interface LoggerOptions {
  /** Lambda's Advanced Logging Controls (`AWS_LAMBDA_LOG_LEVEL`), when set, take precedence. @default 'info' */
  level?: LogLevel;
  /** Where each JSON line goes. @default stdout */
  sink?: LineSink;
  fields?: LogFields;
}

/**
 * JSON lines in the format of Powertools for AWS Lambda (`level`, `message`, `timestamp`, `service`,
 * the Lambda context, then the fields), which CloudWatch Logs indexes. Errors in fields keep their
 * name, message, stack and causes, nothing else of them.
 */
export function createLogger(options: LoggerOptions = {}): RuntimeLogger {
  const SinkLogger = sinkLoggerClass(options.sink ?? stdoutSink);
  const powertools = new SinkLogger({
    serviceName: 'sundial',
    logLevel: (options.level ?? 'info').toUpperCase() as Uppercase<LogLevel>,
    jsonReplacerFn: errorReplacer,
  });
  return Object.assign(new FieldLogger(powertools, options.fields ?? {}), {
    addLambdaContext: (context: Context) => powertools.addContext(context),
  });
}

/**
 * Children share their root's Powertools logger (and so the invocation's context), adding their fields
 * to each line; Powertools' own `createChild` would build a logger per job and mark each one's first
 * line as a cold start. A worker makes a child per job: a class, not closures, and a line below the
 * level costs one comparison.
 */
class FieldLogger implements Logger {
  constructor(
    private readonly powertools: PowertoolsLogger,
    private readonly base: LogFields,
  ) {}

  debug(message: string, fields?: LogFields): void {
    if (this.powertools.level <= LogLevelThreshold.DEBUG) this.powertools.debug(message, this.merged(fields));
  }

  info(message: string, fields?: LogFields): void {
    if (this.powertools.level <= LogLevelThreshold.INFO) this.powertools.info(message, this.merged(fields));
  }

  warn(message: string, fields?: LogFields): void {
    if (this.powertools.level <= LogLevelThreshold.WARN) this.powertools.warn(message, this.merged(fields));
  }

  error(message: string, fields?: LogFields): void {
    this.powertools.error(message, this.merged(fields));
  }

  child(fields: LogFields): Logger {
    return new FieldLogger(this.powertools, this.merged(fields));
  }

  private merged(fields?: LogFields): LogFields {
    return { ...this.base, ...fields };
  }
}

/** A Powertools logger writing to `sink` (a class per sink: Powertools may print while it is being constructed). */
function sinkLoggerClass(sink: LineSink) {
  return class SinkLogger extends PowertoolsLogger {
    protected override printLog(_logLevel: number, log: LogItem): void {
      log.prepareForPrint();
      sink(JSON.stringify(log.getAttributes(), this.getJsonReplacer()));
    }
  };
}

/**
 * An error is logged as its name, message, stack and chain of causes; nothing else of it: AWS SDK errors
 * carry the items they read (`Item`, `CancellationReasons`), payloads and results included. Runs before
 * Powertools' own replacer, which would log every property.
 */
function errorReplacer(_key: string, value: unknown): unknown {
  return value instanceof Error ? describeError(value, new Set()) : value;
}

function describeError(error: Error, seen: Set<Error>): LogFields {
  seen.add(error);
  const { name, message, stack, cause } = error;
  const chained = cause instanceof Error && !seen.has(cause) ? { cause: describeError(cause, seen) } : {};
  return { name, message, stack, ...chained };
}

/** A logger that drops everything: for tests that do not look at logs. */
export const silentLogger: RuntimeLogger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
  addLambdaContext: () => {},
};
