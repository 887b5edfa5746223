import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/core/clock';
import { ALLOWED_ACTIONS, createDashboardRoute } from '../../lib/dashboard';

const PORT = 4750;
const OWN_ORIGIN = `http://127.0.0.1:${PORT}`;

interface Sent {
  handled: boolean;
  status: number;
  headers: Record<string, string | number>;
  body: string;
}

/** Runs the route on a request as the server would hand it over, and records the response. */
async function send(
  request: { method?: string; url: string; headers?: Record<string, string>; body?: string },
  forwarded: unknown[] = [],
  reachable = true,
): Promise<Sent> {
  const route = createDashboardRoute({
    invokeAdmin: async (adminRequest) => {
      if (!reachable) throw new Error('connect ECONNREFUSED 127.0.0.1:4750');
      forwarded.push(adminRequest);
      return { ok: true, result: { schedules: [], cursor: null } };
    },
    clock: new ManualClock(Date.parse('2026-03-02T09:00:00Z')),
  });
  const sent: Sent = { handled: false, status: 0, headers: {}, body: '' };
  const incoming = {
    method: request.method ?? 'GET',
    url: request.url,
    headers: { host: `127.0.0.1:${PORT}`, ...request.headers },
    socket: { localPort: PORT },
  } as unknown as IncomingMessage;
  const response = {
    writeHead(status: number, headers: Record<string, string | number>) {
      sent.status = status;
      sent.headers = headers;
    },
    end(body?: Buffer | string) {
      sent.body = body === undefined ? '' : body.toString();
    },
  } as unknown as ServerResponse;
  sent.handled = await route(incoming, Buffer.from(request.body ?? ''), response);
  return sent;
}

const API_HEADERS = { 'content-type': 'application/json', 'x-sundial-dashboard': '1', origin: OWN_ORIGIN };
const listSchedules = JSON.stringify({ action: 'list_schedules' });

describe('the dashboard route', () => {
  it('serves the page and its modules with a strict content security policy', async () => {
    const page = await send({ url: '/' });
    expect(page).toMatchObject({ handled: true, status: 200 });
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('<script type="module" src="/assets/app.js"></script>');
    expect(String(page.headers['content-security-policy'])).toContain(
      "default-src 'none'; script-src 'self'",
    );
    expect(page.headers['x-frame-options']).toBe('DENY');
    const script = await send({ url: '/assets/app.js' });
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
  });

  it('leaves other paths and methods to the other routes', async () => {
    expect(
      (await send({ url: '/2015-03-31/functions/sundial-admin/invocations', method: 'POST' })).handled,
    ).toBe(false);
    expect((await send({ url: '/assets/../../package.json' })).handled).toBe(false);
    expect((await send({ url: '/', method: 'POST' })).handled).toBe(false);
  });

  it('forwards an allow-listed request and sends the server clock', async () => {
    const forwarded: unknown[] = [];
    const answer = await send(
      { url: '/api/admin', method: 'POST', headers: API_HEADERS, body: listSchedules },
      forwarded,
    );
    expect(answer).toMatchObject({ handled: true, status: 200 });
    expect(JSON.parse(answer.body)).toEqual({ ok: true, result: { schedules: [], cursor: null } });
    expect(answer.headers['x-sundial-now']).toBe(String(Date.parse('2026-03-02T09:00:00Z')));
    expect(forwarded).toEqual([{ action: 'list_schedules' }]);
  });

  it('answers 502 with the reason when the admin API cannot be reached', async () => {
    const answer = await send(
      { url: '/api/admin', method: 'POST', headers: API_HEADERS, body: listSchedules },
      [],
      false,
    );
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.body).error).toEqual({
      code: 'unavailable',
      message: 'the admin API could not be reached: connect ECONNREFUSED 127.0.0.1:4750',
    });
  });

  it('forwards a same-origin request that carries no Origin header', async () => {
    const { origin: _origin, ...headers } = API_HEADERS;
    expect((await send({ url: '/api/admin', method: 'POST', headers, body: listSchedules })).status).toBe(
      200,
    );
  });
});

describe('the dashboard API refuses what a foreign web page could send', () => {
  it.each([
    ['a cross-origin POST', { ...API_HEADERS, origin: 'https://evil.example' }, 403, 'forbidden_origin'],
    [
      'a POST from a sibling port',
      { ...API_HEADERS, origin: 'http://127.0.0.1:8080' },
      403,
      'forbidden_origin',
    ],
    ['a cross-site fetch', { ...API_HEADERS, 'sec-fetch-site': 'cross-site' }, 403, 'forbidden_origin'],
    [
      'a POST without the dashboard header',
      { 'content-type': 'application/json', origin: OWN_ORIGIN },
      403,
      'missing_header',
    ],
    [
      'a form post (text/plain)',
      { ...API_HEADERS, 'content-type': 'text/plain' },
      415,
      'unsupported_media_type',
    ],
    [
      'a DNS-rebinding Host',
      { ...API_HEADERS, host: `evil.example:${PORT}`, origin: `http://evil.example:${PORT}` },
      403,
      'forbidden_host',
    ],
    [
      'a Host on another port',
      { ...API_HEADERS, host: '127.0.0.1:9999', origin: 'http://127.0.0.1:9999' },
      403,
      'forbidden_host',
    ],
  ])('refuses %s', async (_name, headers, status, code) => {
    const forwarded: unknown[] = [];
    const answer = await send({ url: '/api/admin', method: 'POST', headers, body: listSchedules }, forwarded);
    expect(answer.status).toBe(status);
    expect(JSON.parse(answer.body).error.code).toBe(code);
    expect(forwarded).toEqual([]);
  });

  it('refuses a page request with a foreign Host', async () => {
    expect((await send({ url: '/', headers: { host: 'rebound.example' } })).status).toBe(403);
  });

  it.each([
    'add_schedule',
    'update_schedule',
    'remove_schedule',
    'add_job',
    'add_jobs',
    'cancel_job',
    'get_job',
    'nonsense',
    42,
  ])('forwards no %s request (not on the allow-list)', async (action) => {
    const forwarded: unknown[] = [];
    const body = JSON.stringify({ action, id: 'x', task: 'y', trigger: { type: 'interval', seconds: 1 } });
    const answer = await send({ url: '/api/admin', method: 'POST', headers: API_HEADERS, body }, forwarded);
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).error.code).toBe('action_not_allowed');
    expect(forwarded).toEqual([]);
  });

  it('allows exactly the actions the page uses', () => {
    expect([...ALLOWED_ACTIONS].sort()).toEqual([
      'get_job_result',
      'get_schedule',
      'list_jobs',
      'list_schedules',
      'list_tasks',
      'pause_schedule',
      'pause_task',
      'preview_schedule',
      'resume_schedule',
      'resume_task',
      'run_schedule_now',
    ]);
  });

  it('refuses GET, bodies that are not JSON objects, and oversized bodies', async () => {
    expect((await send({ url: '/api/admin', method: 'GET', headers: API_HEADERS })).status).toBe(405);
    expect((await send({ url: '/api/admin', method: 'POST', headers: API_HEADERS, body: '{' })).status).toBe(
      400,
    );
    expect(
      (await send({ url: '/api/admin', method: 'POST', headers: API_HEADERS, body: '[1]' })).status,
    ).toBe(400);
    const huge = JSON.stringify({ action: 'list_jobs', task: 'x'.repeat(70_000) });
    expect((await send({ url: '/api/admin', method: 'POST', headers: API_HEADERS, body: huge })).status).toBe(
      413,
    );
  });
});
