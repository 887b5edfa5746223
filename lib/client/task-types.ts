import type { JsonValue } from '../core/json';

/**
 * What the client reads of a task module's default export (a `defineTask(...)` result): the payload its
 * callers send and the result its handler returns, as types only.
 */
export interface TaskTypes {
  readonly '~types'?: { readonly input: unknown; readonly result: unknown };
}

/** The tasks a client knows, by id: `SundialTasks` of `functions/tasks.d.ts` (written by `npm start`). */
export type TaskMap = { readonly [id: string]: TaskTypes };

/** A task id of the map: a wrong one is a compile error. */
export type TaskId<Tasks extends TaskMap> = Extract<keyof Tasks, string>;

/** The payload a caller sends to a task (its `payloadSchema`'s input); any JSON without a schema. */
export type PayloadOf<Task extends TaskTypes> = Task extends {
  readonly '~types'?: { readonly input: infer Input };
}
  ? unknown extends Input
    ? JsonValue
    : Input
  : JsonValue;

/** What a task's handler returns, as its job's `return_value`. */
export type ResultOf<Task extends TaskTypes> = Task extends {
  readonly '~types'?: { readonly result: infer Result };
}
  ? Result
  : JsonValue | undefined;
