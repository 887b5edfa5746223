import type { IncomingMessage } from 'node:http';
import { quote } from '../core/quote';

/**
 * The local endpoint has no authentication (like DynamoDB Local), so it must not be reachable from a
 * web page the developer happens to have open: browsers send `Origin` on cross-site requests (a plain
 * `aws lambda invoke` or SDK call sends none), and a DNS-rebinding page would arrive with a foreign
 * `Host`. Returns the reason to refuse, or undefined.
 */
export function refuseBrowserCrossSite(request: IncomingMessage, port: number): string | undefined {
  const allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
  const host = request.headers.host ?? '';
  if (!allowedHosts.includes(host)) return `Host ${quote(host)} is not this local endpoint`;
  const origin = request.headers.origin;
  if (origin !== undefined && !allowedHosts.some((allowed) => origin === `http://${allowed}`)) {
    return `cross-site request from ${quote(origin)} refused`;
  }
  return undefined;
}
