import { parentPort, workerData } from 'node:worker_threads';
import { createWorkerLambdaHandler } from '../runtime/lambda/worker';
import { loadTaskRegistryFromDirectory } from '../runtime/tasks/load-directory';
import { lambdaContextUntil } from './lambda-context';
import { localRuntimeDeps } from './local-runtime';
import {
  LOCAL_WORKER_FUNCTION,
  type SandboxInit,
  type SandboxInvocation,
  type SandboxReport,
} from './worker-sandbox';

/**
 * Inside a worker sandbox's thread: loads the tasks and the worker Lambda's handler, as a Lambda
 * sandbox's cold start does, then runs each invocation the platform sends. The handler ends the sandbox
 * as in Lambda (`exitSandbox`: exiting a worker thread ends the thread only).
 */
async function serve(port: NonNullable<typeof parentPort>, init: SandboxInit): Promise<void> {
  const report = (message: SandboxReport) => port.postMessage(message);
  const registry = await loadTaskRegistryFromDirectory(init.functionsDir);
  const deps = localRuntimeDeps(init.settings, registry, (line) => report({ type: 'log', line }));
  const handler = createWorkerLambdaHandler(() => deps, registry, {
    onHandlerDeadline: (jobId) => report({ type: 'deadline', jobId }),
  });
  port.on('message', ({ event, deadline }: SandboxInvocation) => {
    handler(event, lambdaContextUntil(LOCAL_WORKER_FUNCTION, deadline)).then(
      (response) => report({ type: 'response', response }),
      (error: unknown) =>
        report({ type: 'invocation_error', message: error instanceof Error ? error.message : String(error) }),
    );
  });
  report({ type: 'ready' });
}

if (!parentPort) throw new Error('worker-sandbox-main.ts runs in a worker sandbox thread only');
await serve(parentPort, workerData as SandboxInit);
