/** The SDK's logging step, by its name in every v3 client's middleware stack. */
const SDK_LOGGER_MIDDLEWARE = 'loggerMiddleware';

interface WithMiddlewareStack {
  middlewareStack: { remove(toRemove: string): boolean };
}

/**
 * Takes the SDK's logging step out of a client. Sundial gives the SDK no logger (its own logs say what
 * failed, and how), yet with the default no-op logger that step still copies every request and response
 * through the SDK's sensitive-field filter: about 4 % of the CPU of the tick's calls in a profile of the
 * herd benchmark, paid on every call of every Lambda.
 */
export function withoutSdkLogging<Client extends WithMiddlewareStack>(client: Client): Client {
  client.middlewareStack.remove(SDK_LOGGER_MIDDLEWARE);
  return client;
}
