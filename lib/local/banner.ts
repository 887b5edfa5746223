import { LOCAL_ADMIN_FUNCTION } from '../core/admin-contract/endpoint';
import type { LocalPlatform } from './platform';

/** What `npm start` prints once everything is up: where things are and how to add a first schedule. */
const EXAMPLE_PAYLOAD = { team: 'ops', recipients: ['ops@example.com'] };

export function banner(
  platform: LocalPlatform,
  options: { dataDir?: string; tickIntervalMs: number },
): string {
  const tasks = platform.tasks().ids();
  const task = tasks.includes('send-report') ? 'send-report' : (tasks[0] ?? 'my-task');
  const payload = task === 'send-report' ? EXAMPLE_PAYLOAD : {};
  const request = JSON.stringify({
    action: 'add_schedule',
    id: 'hello',
    task,
    trigger: { type: 'interval', seconds: 10 },
    payload,
  });
  return [
    '',
    'Sundial is running locally.',
    '',
    `  admin API (Lambda Invoke)  ${platform.url}  function '${LOCAL_ADMIN_FUNCTION}'`,
    `  dashboard                  ${platform.url}/`,
    `  DynamoDB Local             ${platform.dynamodbEndpoint}  table '${platform.tableName}'`,
    `  SQS emulator               ${platform.sqsEndpoint}`,
    `  EventBridge (PutEvents)    ${platform.eventsEndpoint}  (job events are printed below)`,
    `  tasks (functions/)         ${tasks.join(', ') || '(none yet: add a module to functions/)'}`,
    `  tick                       every ${options.tickIntervalMs / 1000} s`,
    `  data                       ${options.dataDir ? `kept in ${options.dataDir}` : 'in memory (use --data-dir to keep it)'}`,
    '',
    'Add a first schedule:',
    '',
    `  npx sundial schedules add --id hello --task ${task} --every 10s --payload '${JSON.stringify(payload)}'`,
    '',
    'or with the AWS CLI (any credentials; region us-east-1):',
    '',
    `  aws lambda invoke --endpoint-url ${platform.url} --function-name ${LOCAL_ADMIN_FUNCTION} \\`,
    `    --cli-binary-format raw-in-base64-out --payload '${request}' /dev/stdout`,
    '',
    'Press Ctrl-C to stop.',
    '',
  ].join('\n');
}
