import { closestName } from '../../core/closest-name';
import type { TaskOptions } from './define-task';

/**
 * Every option `defineTask` knows, with the fields of those that are objects of Sundial's. The one place
 * to extend when a task option is added (the compiler holds it to `TaskOptions`): anything else in a
 * task module's options is refused when the module loads, so a misspelt limit never deploys as no limit.
 */
export const TASK_OPTIONS = {
  handler: null,
  payloadSchema: null,
  maxRunningJobs: null,
  rateLimit: ['max', 'perSeconds'],
  misfireGraceSeconds: null,
  timeoutSeconds: null,
  retry: ['maxAttempts', 'backoffSeconds', 'maxBackoffSeconds'],
  resultTtlSeconds: null,
  events: null,
  schedules: null,
} as const satisfies Record<keyof TaskOptions, readonly string[] | null>;

const OPTION_NAMES: readonly string[] = Object.keys(TASK_OPTIONS);

/** A task module's options name something `defineTask` does not know: the module does not load. */
export class TaskOptionsError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`${problems.join('; ')} (defineTask knows ${OPTION_NAMES.join(', ')})`);
    this.name = 'TaskOptionsError';
  }
}

/** Throws a {@link TaskOptionsError} naming every option (and field of an option) not in `TASK_OPTIONS`. */
export function refuseUnknownOptions(options: object): void {
  const problems: string[] = [];
  for (const [name, value] of Object.entries(options)) {
    if (!Object.hasOwn(TASK_OPTIONS, name)) {
      problems.push(unknownOption(name, OPTION_NAMES));
      continue;
    }
    const fields: readonly string[] | null = TASK_OPTIONS[name as keyof typeof TASK_OPTIONS];
    if (fields === null || typeof value !== 'object' || value === null) continue;
    for (const field of Object.keys(value)) {
      if (!fields.includes(field)) problems.push(unknownOption(field, fields, `${name}.`));
    }
  }
  if (problems.length > 0) throw new TaskOptionsError(problems);
}

function unknownOption(name: string, known: readonly string[], prefix = ''): string {
  const closest = closestName(name, known);
  const unknown = `unknown option '${prefix}${name}'`;
  if (closest === undefined) return unknown;
  return closest.near
    ? `${unknown}: did you mean '${prefix}${closest.name}'?`
    : `${unknown} (the closest known one is '${prefix}${closest.name}')`;
}
