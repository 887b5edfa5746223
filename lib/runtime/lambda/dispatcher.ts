import { runtimeDependencies } from '../dependencies';
import { createDispatcherHandler } from '../handlers/dispatcher';
import { withLambdaContext } from './lambda-context';

/** The dispatcher Lambda's entry point (the tick invokes it asynchronously with a set of leased shards). */
export const handler = withLambdaContext(runtimeDependencies, createDispatcherHandler(runtimeDependencies));
