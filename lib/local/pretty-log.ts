/** Keys of every runtime log line (Powertools' format) that say nothing in a terminal. */
const STANDARD_KEYS = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'sampling_rate',
  'xray_trace_id',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
  'tenant_id',
]);

interface LoggedError {
  name?: unknown;
  message?: unknown;
  stack?: unknown;
  cause?: unknown;
}

/**
 * Makes the runtime's JSON log lines readable in a terminal: `12:00:01 info  job succeeded task=…`,
 * with an error's stack on the lines below. Tick summaries of ticks that did nothing are dropped (the
 * local tick runs every second).
 */
export function prettyLogSink(write: (line: string) => void): (line: string) => void {
  return (line) => {
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      write(line);
      return;
    }
    const { level, timestamp, message } = entry;
    const fields = Object.entries(entry).filter(
      ([key, value]) => !STANDARD_KEYS.has(key) && value !== undefined && value !== null,
    );
    if (message === 'tick finished' && isIdleTick(Object.fromEntries(fields))) return;
    const clock = typeof timestamp === 'string' ? timestamp.slice(11, 19) : '';
    const details = fields.map(([key, value]) => `${key}=${describe(value)}`).join(' ');
    const stacks = fields.flatMap(([, value]) => (isError(value) ? stackBelowMessage(value) : []));
    write(
      [
        `${clock} ${String(level).toLowerCase().padEnd(5)} ${String(message)}${details ? `  ${details}` : ''}`,
        ...stacks,
      ].join('\n'),
    );
  };
}

function describe(value: unknown): string {
  if (isError(value)) {
    const cause = isError(value.cause) ? ` (cause: ${describe(value.cause)})` : '';
    return `${String(value.name)}: ${String(value.message)}${cause}`;
  }
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function isError(value: unknown): value is LoggedError {
  return typeof value === 'object' && value !== null && 'stack' in value && 'message' in value;
}

/** The stack's frames (its first line repeats the name and message). */
function stackBelowMessage(error: LoggedError): string[] {
  return typeof error.stack === 'string' ? error.stack.split('\n').slice(1) : [];
}

function isIdleTick(fields: Record<string, unknown>): boolean {
  return ['schedulesProcessed', 'jobsEnqueued', 'jobsReaped', 'parkedJobsSent', 'jobsWoken', 'errors'].every(
    (key) => !fields[key],
  );
}
