/** The AWS SDK's own switch for its Node version warning, and nothing else. */
export const SDK_NODE_VERSION_WARNING_SWITCH = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';

/**
 * Turns off, for this process and the ones it starts, the warning the AWS SDK prints at its first client
 * on Node older than 22: that SDK releases after early January 2027 will need Node 22. Sundial pins its
 * SDK versions, which keep working on Node 20 (a supported Node here; the Lambdas run nodejs22.x), so the
 * warning is noise on every start. Other warnings stay, and a value the user set is kept. Call it before
 * the first SDK client is made.
 */
export function quietSdkNodeVersionWarning(env: NodeJS.ProcessEnv = process.env): void {
  env[SDK_NODE_VERSION_WARNING_SWITCH] ??= 'true';
}
