import type { Context } from 'aws-lambda';
import type { RuntimeDeps } from '../dependencies';

/**
 * Wraps a Lambda handler so that every log line of an invocation carries its context (request id,
 * function name, cold start). Dependencies that cannot be built are left to the handler to report.
 */
export function withLambdaContext<Event, Result>(
  getDeps: () => Pick<RuntimeDeps, 'logger'>,
  handler: (event: Event, context: Context) => Promise<Result>,
): (event: Event, context: Context) => Promise<Result> {
  return (event, context) => {
    try {
      getDeps().logger.addLambdaContext(context);
    } catch {
      // The handler builds the dependencies again and reports the failure its own way.
    }
    return handler(event, context);
  };
}
