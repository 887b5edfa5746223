import { startDashboardServer } from '../../dashboard';
import { callAdmin } from '../admin/client';
import { adminCommand } from '../admin-command';
import { wholeNumberFrom } from '../option-values';

const DEFAULT_PORT = 4751;

export const dashboardCommand = adminCommand({
  name: 'dashboard',
  summary: 'serve the web dashboard on 127.0.0.1 for the local platform or AWS',
  description: `Serves the dashboard on http://127.0.0.1:<port> (this machine only) until Ctrl-C: schedules with
their next fire times, running jobs per task, recent results, fire lag and upcoming fires, with
pause, resume and run-now buttons. Against AWS it reads through the admin API with your own
credentials. (The local platform, npm start, serves the same dashboard on its own port.)`,
  examples: [
    'sundial dashboard',
    'sundial dashboard --stack Sundial --profile prod --region eu-west-1 --port 8080',
  ],
  declare: (command) =>
    command.option(
      '--port <port>',
      'the port to listen on, 0 for any free one',
      wholeNumberFrom(0, 65_535),
      DEFAULT_PORT,
    ),
  async execute({ options, io, admin }) {
    const client = await admin();
    await callAdmin(client, 'list_tasks', {});
    const server = await startDashboardServer({
      port: options.port,
      clock: io.clock,
      invokeAdmin: (request) => client.send(request as Record<string, unknown>),
    });
    io.stdout.write(`Sundial dashboard for ${client.description}: ${server.url}/\nPress Ctrl-C to stop.\n`);
    await stopped(io.shutdown);
    await server.stop();
    return undefined;
  },
});

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
