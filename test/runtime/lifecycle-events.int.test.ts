import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBridgePublisher } from '../../lib/adapters/eventbridge/eventbridge-publisher';
import { JOB_EVENT_TYPES, SCHEDULE_EVENT_TYPES } from '../../lib/core/ports/event-publisher';
import {
  type PutEventsEntry,
  type PutEventsServer,
  startPutEventsServer,
} from '../../lib/local/put-events-server';
import { type AdminResponse, createAdminApi } from '../../lib/runtime/admin';
import { adminDependencies } from '../../lib/runtime/handlers/admin';
import { assertLocalEndpoint } from '../support/dynamodb';
import { waitFor } from '../support/wait';
import { type AnyTaskOptions, runInBackground, taskRegistry, useLocalServices } from './real-runtime';

const local = useLocalServices();
const SECOND = 1_000;
let bus: PutEventsServer | undefined;

afterEach(async () => {
  await bus?.stop();
  bus = undefined;
});

/** A documented field table of docs/events.md: the rows under the heading `## <section>`. */
function documentedFields(section: string): Map<string, string> {
  const doc = readFileSync(resolve(import.meta.dirname, '../../docs/events.md'), 'utf8');
  const start = doc.indexOf(`## ${section}`);
  const end = doc.indexOf('\n## ', start + 1);
  const text = doc.slice(start, end === -1 ? undefined : end);
  const rows = [...text.matchAll(/^\| `([a-zA-Z]+)` \| ([^|]+) \|/gm)];
  return new Map(rows.map(([, field, type]) => [field ?? '', (type ?? '').trim()]));
}

/** The event types listed in a section's "when" table. */
function documentedTypes(section: string): string[] {
  const doc = readFileSync(resolve(import.meta.dirname, '../../docs/events.md'), 'utf8');
  const start = doc.indexOf(`## ${section}`);
  const text = doc.slice(
    start,
    doc.indexOf('\n## ', start + 1) === -1 ? undefined : doc.indexOf('\n## ', start + 1),
  );
  return [...text.matchAll(/^\| `([a-z]+\.[a-z]+)` \|/gm)].map(([, type]) => type ?? '');
}

/** Whether `value` is of a documented type ("number or null", "object, optional", "string, only on …"). */
function hasDocumentedType(value: unknown, documented: string): boolean {
  const [kinds = ''] = documented.split(',');
  return kinds
    .split(' or ')
    .some((kind) => (kind.trim() === 'null' ? value === null : typeof value === kind.trim()));
}

/** Checks one published detail against its section's table: no undocumented field, each of its documented type, the required ones present. */
function checkDetail(detail: Record<string, unknown>, fields: Map<string, string>, type: string) {
  expect(
    Object.keys(detail).filter((key) => !fields.has(key)),
    type,
  ).toEqual([]);
  for (const [field, documented] of fields) {
    const optional = documented.includes('optional') || documented.includes('only on');
    if (!(field in detail)) {
      expect(optional, `${type}: ${field} is missing`).toBe(true);
      continue;
    }
    expect(
      hasDocumentedType(detail[field], documented),
      `${type}.${field} = ${JSON.stringify(detail[field])} is not ${documented}`,
    ).toBe(true);
  }
}

describe('lifecycle events (DynamoDB Local, the SQS emulator, the real EventBridge client)', () => {
  it('publishes what docs/events.md documents, each detail of the documented shape', async () => {
    const entries: PutEventsEntry[] = [];
    bus = await startPutEventsServer({ onEvents: (received) => entries.push(...received) });
    const runtime = await local.runtime();
    runtime.deps.events = new EventBridgePublisher({
      client: new EventBridgeClient({
        endpoint: assertLocalEndpoint(bus.endpoint),
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }),
      eventBusName: 'sundial-events',
    });
    let failedOnce = false;
    const tasks: Record<string, AnyTaskOptions> = {
      beat: { events: 'all', handler: () => undefined },
      flaky: {
        events: 'all',
        retry: { maxAttempts: 2, backoffSeconds: 1, maxBackoffSeconds: 1 },
        handler: () => {
          if (failedOnce) throw new Error('fails for good');
          failedOnce = true;
          throw new Error('fails once');
        },
      },
    };
    const api = createAdminApi(adminDependencies(runtime.deps, taskRegistry(tasks)));
    const admin = async (request: Record<string, unknown>) => {
      const response: AdminResponse = await api(request);
      if (!response.ok) throw new Error(`${String(request.action)}: ${JSON.stringify(response.error)}`);
      return response.result as Record<string, unknown>;
    };
    const inSeconds = (seconds: number) => new Date(Date.now() + seconds * SECOND).toISOString();

    // A one-off schedule: added, finished by the admin call's dispatch, removed once its job ended (here
    // cancelled; its closing note would remove it a minute or more after its fire: ADR 0011).
    const onceAt = inSeconds(60);
    await admin({
      action: 'add_schedule',
      id: 'once',
      task: 'beat',
      trigger: { type: 'date', run_at: onceAt },
    });
    await admin({ action: 'cancel_job', job_id: `once@${Date.parse(onceAt)}` });
    await admin({ action: 'add_job', task: 'beat', job_id: 'succeeds' });
    // Every change of a schedule through the API.
    await admin({
      action: 'add_schedule',
      id: 'daily',
      task: 'beat',
      trigger: { type: 'cron', expression: '0 3 * * *' },
    });
    await admin({ action: 'update_schedule', id: 'daily', max_runs: 3 });
    await admin({ action: 'pause_schedule', id: 'daily' });
    await admin({ action: 'resume_schedule', id: 'daily' });
    await admin({ action: 'remove_schedule', id: 'daily' });
    // Jobs: one cancelled, one that fails, is retried and fails for good.
    await admin({ action: 'add_job', task: 'beat', job_id: 'called-off', run_at: inSeconds(3600) });
    await admin({ action: 'cancel_job', job_id: 'called-off' });
    await admin({ action: 'add_job', task: 'flaky', job_id: 'flaky' });
    const platform = runInBackground(local.sqs(), runtime, tasks);
    try {
      const types = () => Promise.resolve(entries.map((entry) => entry.DetailType));
      await waitFor(
        types,
        (seen) =>
          seen.includes('schedule.removed') &&
          seen.includes('job.failed') &&
          seen.filter((type) => type === 'schedule.removed').length === 2,
      );
    } finally {
      await platform.stop();
    }

    expect(new Set(entries.map((entry) => entry.Source))).toEqual(new Set(['sundial']));
    const seen = new Set(entries.map((entry) => entry.DetailType));
    for (const type of [
      ...SCHEDULE_EVENT_TYPES,
      'job.started',
      'job.succeeded',
      'job.retrying',
      'job.failed',
      'job.cancelled',
    ]) {
      expect(seen.has(type), type).toBe(true);
    }
    const removals = entries
      .filter((entry) => entry.DetailType === 'schedule.removed')
      .map((entry) => JSON.parse(entry.Detail ?? '{}') as Record<string, unknown>);
    expect(removals.map((detail) => `${detail.scheduleId}:${detail.reason}`).sort()).toEqual([
      'daily:removed',
      'once:finished',
    ]);
    expect(await runtime.store.getSchedule('once')).toBeUndefined();

    const jobFields = documentedFields('Job events');
    const scheduleFields = documentedFields('Schedule events');
    expect(documentedTypes('Job events').sort()).toEqual([...JOB_EVENT_TYPES].sort());
    expect(documentedTypes('Schedule events').sort()).toEqual([...SCHEDULE_EVENT_TYPES].sort());
    for (const entry of entries) {
      const detail = JSON.parse(entry.Detail ?? '{}') as Record<string, unknown>;
      expect(detail.type).toBe(entry.DetailType);
      const type = entry.DetailType ?? '';
      checkDetail(detail, type.startsWith('job.') ? jobFields : scheduleFields, type);
    }
  });
});
