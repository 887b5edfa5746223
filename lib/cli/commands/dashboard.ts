import { startDashboardServer } from '../../dashboard';
import { callAdmin } from '../admin/client';
import { adminCommand } from '../admin-command';
import { noPositionals, text } from '../args';
import { UsageError } from '../command';

const DEFAULT_PORT = 4751;

export const dashboardCommand = adminCommand({
  name: 'dashboard',
  summary: 'serve the web dashboard on 127.0.0.1 for the local platform or AWS',
  usage: `Usage: sundial dashboard [--port <port>]

Serves the dashboard on http://127.0.0.1:<port> (this machine only) until Ctrl-C: schedules with
their next fire times, running jobs per task, recent results, fire lag and upcoming fires, with
pause, resume and run-now buttons. Against AWS it reads through the admin API with your own
credentials. (The local platform, npm start, serves the same dashboard on its own port.)

Options:
  --port <port>      the port to listen on, 0 for any free one (default ${DEFAULT_PORT})`,
  examples: [
    'sundial dashboard',
    'sundial dashboard --stack Sundial --profile prod --region eu-west-1 --port 8080',
  ],
  options: { port: { type: 'string' } },
  async execute({ values, positionals, io, admin }) {
    noPositionals(positionals);
    const port = portFlag(text(values, 'port'));
    const client = await admin();
    await callAdmin(client, 'list_tasks', {});
    const server = await startDashboardServer({
      port,
      clock: io.clock,
      invokeAdmin: (request) => client.send(request as Record<string, unknown>),
    });
    io.stdout.write(`Sundial dashboard for ${client.description}: ${server.url}/\nPress Ctrl-C to stop.\n`);
    await stopped(io.shutdown);
    await server.stop();
    return undefined;
  },
});

function portFlag(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PORT;
  const port = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 0 && port <= 65_535))
    throw new UsageError(`--port: must be a port number from 0 to 65535 (got '${value}')`);
  return port;
}

/** Resolves when `signal` aborts, or without one on SIGINT / SIGTERM. */
function stopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal) {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
      return;
    }
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
