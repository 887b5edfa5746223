/**
 * Where the local platform (`npm start`) serves the admin API: the Lambda Invoke API on 127.0.0.1 at
 * this port (`SUNDIAL_PORT` overrides it), under this function name. In AWS the function's name is
 * the stack output `STACK_OUTPUTS.adminFunctionName` (lib/core/limits.ts).
 */
export const LOCAL_ADMIN_PORT = 4750;
export const LOCAL_ADMIN_FUNCTION = 'sundial-admin';
