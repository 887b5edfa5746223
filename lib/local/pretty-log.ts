/**
 * Makes the runtime's JSON log lines readable in a terminal: `12:00:01 info  job succeeded task=…`.
 * Tick summaries of ticks that did nothing are dropped (the local tick runs every second).
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
    const { level, time, message, ...fields } = entry;
    if (message === 'tick finished' && isIdleTick(fields)) return;
    const clock = typeof time === 'string' ? time.slice(11, 19) : '';
    const details = Object.entries(fields)
      .filter(([, value]) => value !== undefined && value !== null)
      .map(([key, value]) => `${key}=${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
      .join(' ');
    write(`${clock} ${String(level).padEnd(5)} ${String(message)}${details ? `  ${details}` : ''}`);
  };
}

function isIdleTick(fields: Record<string, unknown>): boolean {
  return ['schedulesProcessed', 'jobsEnqueued', 'jobsReaped', 'parkedJobsSent', 'errors'].every(
    (key) => !fields[key],
  );
}
