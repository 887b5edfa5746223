import { LIMITS } from '../../../../core/limits';

/**
 * Turns the JSON of `aws scheduler get-schedule` (one object, or a list of them) into add_schedule
 * fields, saying per item what was carried, what was not, and why an item cannot be imported.
 * `aws scheduler list-schedules` output (`{ "Schedules": [...] }`) is read too, but it has no
 * ScheduleExpression: its items are reported as needing get-schedule.
 */

/** One EventBridge schedule of the file and what became of it. */
export interface EventBridgeConversion {
  /** Position in the file's list, from 0. */
  index: number;
  /** `group/name` as EventBridge names it; `#<index>` without a Name. */
  source: string;
  /** The add_schedule fields; absent when the item is skipped. */
  schedule?: Record<string, unknown>;
  /** Why the item cannot be imported as it is. */
  skipped?: string;
  /** What was mapped in a way worth knowing, or not carried over. */
  notes: string[];
}

/** Which Sundial task runs the schedules: per target ARN, else `task`. */
export interface TaskChoice {
  task?: string | undefined;
  taskFor: ReadonlyMap<string, string>;
}

/** Sundial's jitter is at most an hour; EventBridge's flexible window up to a day. */
const DEFAULT_GROUP = 'default';

/**
 * The schedules of a get-schedule or list-schedules output, or a sentence saying why the content
 * is neither.
 */
export function eventBridgeItems(content: unknown): unknown[] | string {
  if (Array.isArray(content)) return content;
  if (isObject(content)) {
    if (Array.isArray(content.Schedules)) return content.Schedules;
    if ('Name' in content || 'ScheduleExpression' in content) return [content];
  }
  return 'expected the JSON of `aws scheduler get-schedule` (an object with Name and ScheduleExpression), a list of them, or of `aws scheduler list-schedules` ({"Schedules": [...]})';
}

/**
 * One EventBridge schedule as add_schedule fields, or skipped with the reason.
 *
 * @example
 * convertEventBridgeSchedule({ Name: 'nightly', ScheduleExpression: 'cron(0 2 * * ? *)', State: 'ENABLED',
 *   Target: { Arn: 'arn:aws:lambda:…:function:report', Input: '{"team":"ops"}' } }, 0, { task: 'report', taskFor: new Map() });
 * // { schedule: { id: 'nightly', task: 'report', trigger: { type: 'eventbridge', expression: 'cron(0 2 * * ? *)' },
 * //   payload: { team: 'ops' }, paused: false }, notes: [...] }
 */
export function convertEventBridgeSchedule(
  item: unknown,
  index: number,
  choice: TaskChoice,
): EventBridgeConversion {
  if (!isObject(item)) {
    return {
      index,
      source: `#${index}`,
      skipped: 'not an object: expected a get-schedule output',
      notes: [],
    };
  }
  const name = text(item.Name);
  const group = text(item.GroupName) ?? DEFAULT_GROUP;
  const source = name === undefined ? `#${index}` : `${group}/${name}`;
  const skip = (skipped: string) => ({ index, source, skipped, notes: [] });
  if (name === undefined) return skip('has no Name');
  const expression = text(item.ScheduleExpression);
  if (expression === undefined) {
    return skip(
      `has no ScheduleExpression (list-schedules does not return it): export it with \`aws scheduler get-schedule --name ${name} --group-name ${group}\` and import that`,
    );
  }
  const target = isObject(item.Target) ? item.Target : {};
  const arn = text(target.Arn);
  const task = (arn === undefined ? undefined : choice.taskFor.get(arn)) ?? choice.task;
  if (task === undefined) {
    return skip(
      `no task for its target ${arn ?? '(none)'}: give --task TASK or --task-for '${arn ?? 'ARN'}=TASK'`,
    );
  }
  const notes: string[] = [];
  const id = scheduleId(group, name, notes);
  notes.push(`target ${arn ?? '(none)'} → task ${task}`);
  const schedule: Record<string, unknown> = {
    id,
    task,
    trigger: trigger(item, expression, notes),
    ...payloadOf(target, notes),
    ...jitterOf(item.FlexibleTimeWindow, notes),
    ...(text(item.Description) !== undefined && { description: item.Description }),
    paused: item.State === 'DISABLED',
  };
  notes.push(...notCarried(item, target));
  return { index, source, schedule, notes };
}

/** `name`, or `group:name` outside the default group, with what Sundial's ids do not allow replaced by `-`. */
function scheduleId(group: string, name: string, notes: string[]): string {
  const wanted = group === DEFAULT_GROUP ? name : `${group}:${name}`;
  const id = wanted.replace(/[^A-Za-z0-9._:-]/g, '-').slice(0, LIMITS.idLength) || '-';
  if (id !== name) notes.push(`id ${id} (group ${group}, name ${name})`);
  return id;
}

function trigger(
  item: Record<string, unknown>,
  expression: string,
  notes: string[],
): Record<string, unknown> {
  const timezone = text(item.ScheduleExpressionTimezone);
  const window = { start_at: instantText(item.StartDate), end_at: instantText(item.EndDate) };
  const oneTime = expression.startsWith('at(');
  if (oneTime && (window.start_at !== undefined || window.end_at !== undefined)) {
    notes.push('StartDate/EndDate dropped: EventBridge ignores them for at() schedules');
  }
  return {
    type: 'eventbridge',
    expression,
    ...(timezone === undefined ? {} : { timezone }),
    ...(oneTime || window.start_at === undefined ? {} : { start_at: window.start_at }),
    ...(oneTime || window.end_at === undefined ? {} : { end_at: window.end_at }),
  };
}

/** AWS CLI prints timestamps as ISO-8601; `--cli-timestamp-format wire`-style epoch seconds are read too. */
function instantText(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value * 1000).toISOString();
  return text(value);
}

/** Target.Input as the payload: its JSON when that is an object, else `{ "input": … }` (payloads are objects). */
function payloadOf(target: Record<string, unknown>, notes: string[]): { payload?: unknown } {
  const input = target.Input;
  if (input === undefined) return {};
  let value: unknown = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch {
      notes.push('Target.Input is not JSON: the payload is {"input": <its text>}');
      return { payload: { input } };
    }
  }
  if (isObject(value)) return { payload: value };
  notes.push('Target.Input is not a JSON object: the payload is {"input": <its value>}');
  return { payload: { input: value } };
}

function jitterOf(window: unknown, notes: string[]): { max_jitter_seconds?: number } {
  if (!isObject(window) || window.Mode !== 'FLEXIBLE') return {};
  const minutes = typeof window.MaximumWindowInMinutes === 'number' ? window.MaximumWindowInMinutes : 0;
  const seconds = Math.round(minutes * 60);
  if (seconds > LIMITS.maxJitterSeconds) {
    notes.push(`flexible window of ${minutes} minutes cut to Sundial's longest jitter, 60 minutes`);
    return { max_jitter_seconds: LIMITS.maxJitterSeconds };
  }
  notes.push(`flexible window of ${minutes} minutes → max_jitter_seconds ${seconds}`);
  return { max_jitter_seconds: seconds };
}

/** The settings Sundial has no field for, each named with its value. */
function notCarried(item: Record<string, unknown>, target: Record<string, unknown>): string[] {
  const notes: string[] = [];
  if (item.State === 'DISABLED') notes.push('State DISABLED → paused');
  const retry = isObject(target.RetryPolicy) ? target.RetryPolicy : undefined;
  if (retry !== undefined) {
    notes.push(
      `RetryPolicy not carried (MaximumRetryAttempts ${String(retry.MaximumRetryAttempts ?? '-')}, MaximumEventAgeInSeconds ${String(retry.MaximumEventAgeInSeconds ?? '-')}): the task's retry settings apply`,
    );
  }
  if (target.DeadLetterConfig !== undefined) notes.push('Target.DeadLetterConfig not carried');
  for (const key of Object.keys(target).filter((key) => key.endsWith('Parameters'))) {
    notes.push(`Target.${key} not carried`);
  }
  if (item.ActionAfterCompletion === 'DELETE') {
    notes.push('ActionAfterCompletion DELETE not carried: remove the schedule once it has finished');
  }
  return notes;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
