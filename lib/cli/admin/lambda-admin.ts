import { InvokeCommand, LambdaClient, type LambdaClientConfig } from '@aws-sdk/client-lambda';
import { type AdminAnswer, AdminUnavailableError, asAdminAnswer } from './answer';
import type { AdminClient } from './client';

export interface LambdaAdminOptions {
  functionName: string;
  /** The SDK client's settings: region, profile, and for the local platform endpoint and credentials. */
  config: LambdaClientConfig;
  /** For messages: `the local platform at http://127.0.0.1:4750`. */
  description: string;
  /** Said after a connection failure: what to check. */
  unreachableHint: string;
}

/**
 * The admin API through `@aws-sdk/client-lambda` InvokeCommand: one contract for every client, the
 * local platform (its Lambda endpoint) and AWS alike. A function that crashes (`FunctionError`)
 * or cannot be reached is an `AdminUnavailableError`; the admin API's own answers are returned as they are.
 */
export class LambdaAdminClient implements AdminClient {
  readonly description: string;
  private readonly lambda: LambdaClient;

  constructor(private readonly options: LambdaAdminOptions) {
    this.description = options.description;
    this.lambda = new LambdaClient(options.config);
  }

  async send(request: Readonly<Record<string, unknown>>): Promise<AdminAnswer> {
    const output = await this.invoke(request);
    const text = Buffer.from(output.Payload ?? new Uint8Array()).toString('utf8');
    const body = parseJson(text);
    if (output.FunctionError) {
      const { errorType, errorMessage } = (body ?? {}) as { errorType?: string; errorMessage?: string };
      throw new AdminUnavailableError(
        `the admin function failed (${output.FunctionError}): ${errorType ?? 'Error'}: ${errorMessage ?? text}`,
        'see the admin function’s logs',
      );
    }
    return asAdminAnswer(body, this.description);
  }

  close(): void {
    this.lambda.destroy();
  }

  private async invoke(request: Readonly<Record<string, unknown>>) {
    try {
      return await this.lambda.send(
        new InvokeCommand({
          FunctionName: this.options.functionName,
          Payload: Buffer.from(JSON.stringify(request)),
        }),
      );
    } catch (error) {
      throw new AdminUnavailableError(
        `cannot reach ${this.description}: ${describeSdkError(error)}`,
        this.options.unreachableHint,
      );
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return text;
  }
}

/** `ECONNREFUSED`, `ResourceNotFoundException: Function not found: …`, `CredentialsProviderError: …` */
export function describeSdkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  const aggregate = error instanceof AggregateError ? error.errors.map(describeSdkError).join('; ') : '';
  const message = error.message || aggregate || code || error.name;
  const prefix =
    error.name && error.name !== 'Error' && !message.startsWith(error.name) ? `${error.name}: ` : '';
  return `${prefix}${message}${code && !message.includes(code) ? ` (${code})` : ''}`;
}
