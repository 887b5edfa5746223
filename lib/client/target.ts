import type { LambdaClientConfig } from '@aws-sdk/client-lambda';
import { LOCAL_ADMIN_FUNCTION, LOCAL_ADMIN_PORT } from '../core/admin-contract/endpoint';
import { STACK_OUTPUTS } from '../core/limits';

/** Where the client sends its calls: one of a function, a stack's outputs, or the local platform. */
export type SundialTarget =
  /** The deployed admin Lambda, by name or ARN, with the caller's AWS credentials. */
  | { readonly functionName: string }
  /**
   * A deployed stack's outputs (`cdk deploy --outputs-file outputs.json`: the whole file, or the
   * outputs of one stack); the admin function is its `AdminFunctionName` output.
   */
  | { readonly stackOutputs: Readonly<Record<string, unknown>>; readonly stack?: string }
  /** The local platform (`npm start`): `true` for `http://127.0.0.1:4750`, or its URL. */
  | { readonly local: true | string };

/** The function to invoke and the Lambda client's settings for it. */
export function resolveTarget(
  target: SundialTarget,
  config: LambdaClientConfig = {},
): { functionName: string; config: LambdaClientConfig } {
  if ('functionName' in target) return { functionName: target.functionName, config };
  if ('stackOutputs' in target) return { functionName: adminFunctionOf(target), config };
  const url = target.local === true ? `http://127.0.0.1:${LOCAL_ADMIN_PORT}` : target.local;
  return {
    functionName: LOCAL_ADMIN_FUNCTION,
    config: {
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      ...config,
      endpoint: url,
    },
  };
}

function adminFunctionOf(target: {
  stackOutputs: Readonly<Record<string, unknown>>;
  stack?: string;
}): string {
  const stacks = Object.entries(target.stackOutputs).filter(
    ([name, value]) => typeof value === 'object' && value !== null && (target.stack ?? name) === name,
  );
  const outputs = [target.stackOutputs, ...stacks.map(([, value]) => value as Record<string, unknown>)];
  const names = outputs.flatMap((each) =>
    Object.entries(each)
      .filter(([key, value]) => key.includes(STACK_OUTPUTS.adminFunctionName) && typeof value === 'string')
      .map(([, value]) => value as string),
  );
  const unique = [...new Set(names)];
  if (unique.length !== 1) {
    throw new Error(
      unique.length === 0
        ? `the stack outputs have no ${STACK_OUTPUTS.adminFunctionName}; pass the outputs of a Sundial stack (cdk deploy --outputs-file)`
        : `the stack outputs name ${unique.length} admin functions; say which stack with { stack }`,
    );
  }
  return unique[0] as string;
}
