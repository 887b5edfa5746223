import { describe, expect, expectTypeOf, it } from 'vitest';
import { type AdminAnswer, AdminAnswerError } from '../../lib/cli/admin/answer';
import { type AdminClient, callAdmin } from '../../lib/cli/admin/client';
import type { AdminResults, WireSchedule } from '../../lib/core/admin-contract';

/** An admin client that records what it was sent and answers `answer`. */
function fakeClient(answer: AdminAnswer) {
  const sent: Record<string, unknown>[] = [];
  const client: AdminClient = {
    description: 'a fake admin API',
    send: async (request) => {
      sent.push({ ...request });
      return answer;
    },
    close: () => undefined,
  };
  return { client, sent };
}

describe('callAdmin', () => {
  it('sends the action with its fields and returns the result, typed by the contract', async () => {
    const page: AdminResults['list_schedules'] = { schedules: [], cursor: null };
    const { client, sent } = fakeClient({ ok: true, result: page });

    const result = await callAdmin(client, 'list_schedules', { task: 'send-report', limit: 20 });

    expect(sent).toEqual([{ task: 'send-report', limit: 20, action: 'list_schedules' }]);
    expect(result).toEqual(page);
    expectTypeOf(result.schedules).toEqualTypeOf<WireSchedule[]>();
    expectTypeOf(result.cursor).toEqualTypeOf<string | null>();
  });

  it('throws the error answer, with the flags that set its fields', async () => {
    const { client } = fakeClient({
      ok: false,
      error: {
        code: 'invalid_input',
        message: 'id: must not be empty',
        details: [{ path: 'id', message: 'must not be empty' }],
      },
    });

    const error = await callAdmin(client, 'get_schedule', { id: '' }, { id: '--id' }).catch(
      (thrown) => thrown,
    );

    expect(error).toBeInstanceOf(AdminAnswerError);
    expect(error).toMatchObject({ code: 'invalid_input', fieldFlags: { id: '--id' } });
  });

  it('takes only the fields of the action (checked when compiled)', () => {
    const { client } = fakeClient({ ok: true, result: { tasks: [] } });
    const calls = [
      // @ts-expect-error list_tasks has no fields
      () => callAdmin(client, 'list_tasks', { verbose: true }),
      // @ts-expect-error get_schedule has `id`, not `schedule_id`
      () => callAdmin(client, 'get_schedule', { schedule_id: 'nightly' }),
      () => callAdmin(client, 'list_tasks', {}),
    ];
    expect(calls).toHaveLength(3);
  });
});
