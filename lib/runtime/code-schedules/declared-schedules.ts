import { DEFAULT_PAYLOAD } from '../../core/admin-contract';
import { addScheduleParams } from '../../core/admin-contract/schedules';
import {
  APP_DECLARATIONS,
  type ScheduleDeclaration,
  type ScheduleOverrides,
} from '../../core/code-schedules/declaration';
import type { DeclaredFields, DesiredSchedule } from '../../core/code-schedules/desired';
import type { ValidationIssue } from '../../core/errors';
import { isRecord } from '../../core/json';
import { DEFAULT_PRIORITY } from '../../core/model/priority';
import { quote } from '../../core/quote';
import { anchorIntervals, isEventBridgeExpression, parseTrigger } from '../../core/triggers';
import { collectIssues } from '../../core/validation';
import { InputCheck } from '../admin/validation/input-check';
import { checkTimeoutOverride } from '../admin/validation/timeout-override';
import type { TaskRegistry } from '../tasks/registry';

export { APP_DECLARATIONS };

/** The schedules declared in code are not valid: every problem, each naming the schedule and its field. */
export class DeclaredSchedulesError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid schedules declared in code:\n  ${problems.join('\n  ')}`);
    this.name = 'DeclaredSchedulesError';
  }
}

/** One declaration as written, with what it is checked against. */
interface Declaration {
  declaredIn: string;
  task: string;
  written: unknown;
  /** `schedules[2]`: where it stands, for a declaration without a usable id. */
  position: string;
}

/** Every field of a declaration (one missing here fails to compile). */
const DECLARATION_FIELDS: Readonly<Record<keyof ScheduleDeclaration, true>> = {
  id: true,
  trigger: true,
  timezone: true,
  payload: true,
  description: true,
  metadata: true,
  tags: true,
  overrides: true,
  coalesce: true,
  misfireGraceSeconds: true,
  maxJitterSeconds: true,
  priority: true,
};
const DECLARATION_KEYS = new Set(Object.keys(DECLARATION_FIELDS));
const OVERRIDE_KEYS: readonly (keyof ScheduleOverrides)[] = [
  'maxAttempts',
  'backoffSeconds',
  'timeoutSeconds',
  'resultTtlSeconds',
];
/** The admin API's names of the declaration's fields, for messages that name what the author wrote. */
const DECLARATION_FIELD_OF: Readonly<Record<string, string>> = {
  misfire_grace_seconds: 'misfireGraceSeconds',
  max_jitter_seconds: 'maxJitterSeconds',
  max_attempts: 'overrides.maxAttempts',
  backoff_seconds: 'overrides.backoffSeconds',
  timeout_seconds: 'overrides.timeoutSeconds',
  result_ttl_seconds: 'overrides.resultTtlSeconds',
};
/** Triggers that are read in a time zone. */
const ZONED_TRIGGERS = new Set(['cron', 'calendar_interval', 'eventbridge']);
/** Where a declared interval without `start_at` counts from: the same instant in every environment. */
const DECLARED_INTERVAL_ANCHOR = 0;

/**
 * The schedules declared in code, checked and with every field explicit: those of each task
 * (`schedules` in `defineTask`) and those of the CDK app (which name their task). Each is checked as
 * `add_schedule` checks a request (trigger and time zone, the payload against the task's schema, ids,
 * overrides), except that its trigger may have fired for good (a deploy keeps such a schedule); ids
 * must be unique across all of them.
 *
 * @throws DeclaredSchedulesError listing every problem, each naming the schedule and its field
 */
export function declaredSchedules(
  registry: TaskRegistry,
  appDeclarations: readonly unknown[] = [],
): DesiredSchedule[] {
  return checkDeclarations(registry, [
    ...registry.all().flatMap((task) =>
      task.definition.schedules.map((written, index) => ({
        declaredIn: task.file ?? `functions/${task.id}.ts`,
        task: task.id,
        written,
        position: `schedules[${index}]`,
      })),
    ),
    ...appDeclarations.map((written, index) => ({
      declaredIn: APP_DECLARATIONS,
      task: isRecord(written) && typeof written.task === 'string' ? written.task : '',
      written: isRecord(written) ? withoutTask(written) : written,
      position: `schedules[${index}]`,
    })),
  ]);
}

/**
 * Checks schedules already in their explicit form (a deploy's input, which may come from an older synth
 * or from anywhere) against the tasks as deployed, exactly as `declaredSchedules` checks declarations.
 *
 * @throws DeclaredSchedulesError listing every problem
 */
export function checkDesiredSchedules(
  registry: TaskRegistry,
  desired: readonly unknown[],
): DesiredSchedule[] {
  return checkDeclarations(
    registry,
    desired.map((schedule, index) => {
      const { id, declaredIn, fields } = isRecord(schedule) ? schedule : {};
      const explicit = isRecord(fields) ? fields : {};
      return {
        declaredIn: typeof declaredIn === 'string' ? declaredIn : `schedules[${index}]`,
        task: typeof explicit.task === 'string' ? explicit.task : '',
        written: isRecord(schedule) ? declarationOf(id, explicit) : schedule,
        position: `schedules[${index}]`,
      };
    }),
  );
}

function checkDeclarations(registry: TaskRegistry, declarations: readonly Declaration[]): DesiredSchedule[] {
  const problems: string[] = [];
  const desired: DesiredSchedule[] = [];
  const declaredAt = new Map<string, string>();
  for (const declaration of declarations) {
    const checked = checkDeclaration(declaration, registry);
    if ('problems' in checked) {
      problems.push(...checked.problems);
      continue;
    }
    const other = declaredAt.get(checked.id);
    if (other !== undefined) {
      problems.push(
        `${nameOf(declaration)}: id: declared twice, also in ${other}; schedule ids must be unique`,
      );
      continue;
    }
    declaredAt.set(checked.id, declaration.declaredIn);
    desired.push(checked);
  }
  if (problems.length > 0) throw new DeclaredSchedulesError(problems);
  return desired.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The declaration that `DeclaredFields` came from (their defaults written out). */
function declarationOf(id: unknown, fields: Record<string, unknown>): Record<string, unknown> {
  const overrides = {
    maxAttempts: fields.max_attempts ?? undefined,
    backoffSeconds: fields.backoff_seconds ?? undefined,
    timeoutSeconds: fields.timeout_seconds ?? undefined,
    resultTtlSeconds: fields.result_ttl_seconds ?? undefined,
  };
  return {
    id,
    trigger: fields.trigger,
    payload: fields.payload,
    description: fields.description ?? undefined,
    metadata: fields.metadata,
    tags: fields.tags,
    overrides,
    coalesce: fields.coalesce,
    misfireGraceSeconds: fields.misfire_grace_seconds,
    maxJitterSeconds: fields.max_jitter_seconds,
    priority: fields.priority,
  };
}

function withoutTask(written: Record<string, unknown>): Record<string, unknown> {
  const { task: _task, ...rest } = written;
  return rest;
}

function checkDeclaration(
  declaration: Declaration,
  registry: TaskRegistry,
): DesiredSchedule | { problems: string[] } {
  const name = nameOf(declaration);
  const { written } = declaration;
  if (!isRecord(written)) {
    return { problems: [`${name}: must be an object { id, trigger, … }, got ${describe(written)}`] };
  }
  const issues: ValidationIssue[] = shapeIssues(written, declaration);
  const trigger = triggerOf(written.trigger, written.timezone);
  if (trigger.issue) issues.push(trigger.issue);
  const parsed =
    trigger.raw === undefined ? undefined : collectIssues(() => parseTrigger(trigger.raw, 'trigger'));
  if (parsed && 'issues' in parsed) issues.push(...parsed.issues.map((issue) => fromTrigger(issue, written)));

  const check = new InputCheck(registry);
  const request = addRequestOf(written, declaration.task);
  const params = check.params(addScheduleParams, request);
  const task = registry.get(declaration.task);
  if (!task) {
    const known = registry.ids().join(', ') || '(none)';
    issues.push({ path: 'task', message: `${quote(declaration.task)} is not a task; tasks: ${known}` });
  }
  check.payload(task, InputCheck.payloadToCheck(request.payload, DEFAULT_PAYLOAD));
  checkTimeoutOverride(check, task, request.timeout_seconds);
  const found = collectIssues(() => check.finish());
  if ('issues' in found) issues.push(...found.issues.map(fromRequest));

  if (issues.length > 0 || !params || !task || !parsed || !('value' in parsed)) {
    return { problems: issues.map((issue) => `${name}: ${issue.path}: ${issue.message}`) };
  }
  const fields: DeclaredFields = {
    task: task.id,
    trigger: anchorIntervals(parsed.value, DECLARED_INTERVAL_ANCHOR),
    payload: params.payload ?? DEFAULT_PAYLOAD,
    coalesce: params.coalesce ?? 'latest',
    misfire_grace_seconds:
      params.misfire_grace_seconds === undefined
        ? task.definition.misfireGraceSeconds
        : params.misfire_grace_seconds,
    max_jitter_seconds: params.max_jitter_seconds ?? 0,
    tags: params.tags ?? [],
    metadata: params.metadata ?? {},
    description: params.description || null,
    priority: params.priority ?? DEFAULT_PRIORITY,
    max_attempts: params.max_attempts ?? null,
    backoff_seconds: params.backoff_seconds ?? null,
    timeout_seconds: params.timeout_seconds ?? null,
    result_ttl_seconds: params.result_ttl_seconds ?? null,
    keep_finished: true,
  };
  return { id: String(written.id), declaredIn: declaration.declaredIn, fields };
}

/** `schedule 'nightly' (functions/send-report.ts)`, or its position when it has no usable id. */
function nameOf(declaration: Declaration): string {
  const id = isRecord(declaration.written) ? declaration.written.id : undefined;
  const which = typeof id === 'string' && id !== '' ? `schedule ${quote(id)}` : declaration.position;
  return `${which} (${declaration.declaredIn})`;
}

/** Fields that are not part of a declaration, and overrides that are not overrides. */
function shapeIssues(written: Record<string, unknown>, declaration: Declaration): ValidationIssue[] {
  const issues = Object.keys(written)
    .filter((key) => !DECLARATION_KEYS.has(key))
    .map((key) => ({
      path: key,
      message: `is not a field of a schedule declaration; fields: ${[...DECLARATION_KEYS].join(', ')}${declaration.declaredIn === APP_DECLARATIONS ? ', task' : ''}`,
    }));
  if (written.id === undefined) issues.push({ path: 'id', message: 'is required' });
  const { overrides } = written;
  if (overrides !== undefined && !isRecord(overrides)) {
    issues.push({ path: 'overrides', message: `must be an object { ${OVERRIDE_KEYS.join(', ')} }` });
  } else if (overrides !== undefined) {
    for (const key of Object.keys(overrides).filter(
      (key) => !(OVERRIDE_KEYS as readonly string[]).includes(key),
    )) {
      issues.push({
        path: `overrides.${key}`,
        message: `is not an override; overrides: ${OVERRIDE_KEYS.join(', ')}`,
      });
    }
  }
  return issues;
}

/** The trigger JSON a declaration means: text is a cron or EventBridge expression; `timezone` is set in. */
function triggerOf(written: unknown, timezone: unknown): { raw?: unknown; issue?: ValidationIssue } {
  if (written === undefined) return {};
  if (typeof written === 'string') {
    const type = isEventBridgeExpression(written) ? 'eventbridge' : 'cron';
    return { raw: { type, expression: written, ...(timezone !== undefined && { timezone }) } };
  }
  if (!isRecord(written)) {
    return {
      issue: {
        path: 'trigger',
        message: `must be a cron or EventBridge expression ('0 9 * * MON-FRI', 'rate(5 minutes)') or a trigger object ({ type: 'interval', minutes: 5 }), got ${describe(written)}`,
      },
    };
  }
  if (timezone === undefined) return { raw: written };
  if (!ZONED_TRIGGERS.has(String(written.type))) {
    return {
      issue: {
        path: 'timezone',
        message: `applies to cron, calendar_interval and eventbridge triggers; a ${String(written.type)} trigger has none`,
      },
    };
  }
  if (written.timezone !== undefined && written.timezone !== timezone) {
    return {
      issue: {
        path: 'timezone',
        message: `differs from trigger.timezone (${describe(written.timezone)}); give it once`,
      },
    };
  }
  return { raw: { ...written, timezone } };
}

/** A trigger problem, named as written: a text trigger's expression is `trigger`, its zone `timezone`. */
function fromTrigger(issue: ValidationIssue, written: Record<string, unknown>): ValidationIssue {
  if (typeof written.trigger !== 'string') return issue;
  if (issue.path === 'trigger.timezone') return { ...issue, path: 'timezone' };
  if (issue.path === 'trigger.expression') return { ...issue, path: 'trigger' };
  return issue;
}

/** A problem of the `add_schedule` request, named as the declaration's field. */
function fromRequest(issue: ValidationIssue): ValidationIssue {
  const [head = '', ...rest] = issue.path.split('.');
  const field = DECLARATION_FIELD_OF[head];
  return field === undefined ? issue : { ...issue, path: [field, ...rest].join('.') };
}

/** The `add_schedule` fields a declaration gives (the trigger's content is checked on its own). */
function addRequestOf(written: Record<string, unknown>, task: string): Record<string, unknown> {
  const overrides = isRecord(written.overrides) ? written.overrides : {};
  const request: Record<string, unknown> = {
    id: written.id,
    task,
    trigger: written.trigger,
    payload: written.payload,
    description: written.description,
    metadata: written.metadata,
    tags: written.tags,
    coalesce: written.coalesce,
    misfire_grace_seconds: written.misfireGraceSeconds,
    max_jitter_seconds: written.maxJitterSeconds,
    priority: written.priority,
    max_attempts: overrides.maxAttempts,
    backoff_seconds: overrides.backoffSeconds,
    timeout_seconds: overrides.timeoutSeconds,
    result_ttl_seconds: overrides.resultTtlSeconds,
  };
  return Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined));
}

function describe(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  return Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value;
}
