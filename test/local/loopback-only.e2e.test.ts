import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPlatform, startLocalPlatform } from '../../lib/local/platform';
import { listeningSockets } from '../support/listening-sockets';

let platform: LocalPlatform;

beforeAll(async () => {
  platform = await startLocalPlatform({
    port: 0,
    functionsDir: resolve(import.meta.dirname, 'fixtures/functions'),
    log: () => {},
    env: { SUNDIAL_LOG_LEVEL: 'error' },
  });
});

afterAll(async () => {
  await platform?.stop();
});

const portOf = (url: string) => Number(new URL(url).port);

describe('the local platform (npm start) on the network', () => {
  it('listens on 127.0.0.1 only: every socket of this process and its children is loopback', () => {
    const sockets = listeningSockets();

    // The platform's own servers are among them (the check cannot pass by finding nothing) …
    const ports = new Set(sockets.map((socket) => socket.port));
    for (const url of [
      platform.url,
      platform.dynamodbEndpoint,
      platform.sqsEndpoint,
      platform.eventsEndpoint,
    ]) {
      expect(ports).toContain(portOf(url));
    }
    // … and none of them can be reached from another machine.
    expect(sockets.filter((socket) => !socket.loopback)).toEqual([]);
  });
});
