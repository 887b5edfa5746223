import { runtimeDependencies } from '../dependencies';
import { createTickHandler } from '../handlers/tick';

/** The tick Lambda's entry point (an EventBridge rule invokes it every minute). */
export const handler = createTickHandler(runtimeDependencies);
