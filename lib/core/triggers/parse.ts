import { ValidationError } from '../errors';
import { jsonByteLength, LIMITS } from '../limits';
import { parseWithIssues } from '../validation/zod-issues';
import { type TriggerSpec, triggerSchema } from './schema';

/** `and`/`or` may nest this deep; deeper input is refused before zod recurses into it. */
export const MAX_NESTING_DEPTH = 8;

/**
 * Validates trigger JSON completely: its shape (unknown fields included), and what the shape
 * cannot say: a cron expression that parses, a known IANA zone, timestamps with an offset,
 * `start_at` ≤ `end_at`, a non-zero interval. Every problem is reported at once.
 *
 * @param path the name of the input in messages (`schedule.trigger` for a schedule's trigger)
 * @throws {ValidationError} listing every problem, each with its field path and what is allowed.
 * @example
 * parseTrigger({ type: 'cron', expression: '0 9 * * MON-FRI', timezone: 'Europe/Berlin' });
 * parseTrigger({ type: 'cron', expression: '*\/0 * * * *' });
 * // throws ValidationError: "trigger.expression: invalid cron expression '*\/0 * * * *': step must be at least 1"
 */
export function parseTrigger(input: unknown, path = 'trigger'): TriggerSpec {
  const tooDeep = findTooDeepNesting(input, path, 0);
  if (tooDeep !== undefined) {
    throw ValidationError.single(
      tooDeep,
      `and/or triggers may nest at most ${MAX_NESTING_DEPTH} levels deep`,
    );
  }
  const bytes = jsonByteLength(input);
  if (bytes > LIMITS.triggerBytes) {
    throw ValidationError.single(
      path,
      `must be at most ${LIMITS.triggerBytes / 1024} KB as JSON (this one is ${Math.ceil(bytes / 1024)} KB)`,
    );
  }
  const parsed = parseWithIssues(triggerSchema, input, path);
  if ('issues' in parsed) throw new ValidationError(parsed.issues);
  return parsed.value;
}

function findTooDeepNesting(input: unknown, path: string, depth: number): string | undefined {
  if (
    typeof input !== 'object' ||
    input === null ||
    !('triggers' in input) ||
    !Array.isArray(input.triggers)
  ) {
    return undefined;
  }
  if (depth >= MAX_NESTING_DEPTH) return path;
  for (const [index, child] of input.triggers.entries()) {
    const found = findTooDeepNesting(child, `${path}.triggers[${index}]`, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}
