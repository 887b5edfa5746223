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

const SEVERITY: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LineSink = (line: string) => void;

export const stdoutSink: LineSink = (line) => {
  process.stdout.write(`${line}\n`);
};

export interface LoggerOptions {
  level?: LogLevel;
  sink?: LineSink;
  now?: () => number;
  fields?: LogFields;
}

/** A JSON-lines logger (CloudWatch Logs indexes the fields). */
export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = SEVERITY[options.level ?? 'info'];
  const sink = options.sink ?? stdoutSink;
  const now = options.now ?? Date.now;
  const base = options.fields ?? {};
  const write = (level: LogLevel) => (message: string, fields?: LogFields) => {
    if (SEVERITY[level] < threshold) return;
    sink(
      JSON.stringify(
        { level, time: new Date(now()).toISOString(), message, ...base, ...fields },
        errorReplacer,
      ),
    );
  };
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (fields) => createLogger({ ...options, fields: { ...base, ...fields } }),
  };
}

/** Errors logged as fields keep their name and message (JSON.stringify would print `{}`). */
function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message };
  return value;
}

/** A logger that drops everything: for tests that do not look at logs. */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};
