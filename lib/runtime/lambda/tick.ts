import { runtimeDependencies } from '../dependencies';
import { createTickHandler } from '../handlers/tick';
import { withLambdaContext } from './lambda-context';

/** The tick Lambda's entry point (an EventBridge rule invokes it every minute). */
export const handler = withLambdaContext(runtimeDependencies, createTickHandler(runtimeDependencies));
