import type { z } from 'zod';
import { ValidationError, type ValidationIssue } from '../../core/errors';
import { shorten } from '../../core/quote';

/** `trigger.expression`, `jobs[3].payload.team`: how field paths read in messages. */
export function formatPath(segments: readonly PropertyKey[], prefix = ''): string {
  let path = prefix;
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else path += path ? `.${shorten(String(segment))}` : shorten(String(segment));
  }
  return path;
}

/** Joins a field path under a parent path (`jobs[2]` + `payload` → `jobs[2].payload`). */
export function joinPath(parent: string, child: string): string {
  if (!parent) return child;
  if (!child) return parent;
  return child.startsWith('[') ? `${parent}${child}` : `${parent}.${child}`;
}

/**
 * zod's issues as Sundial's: one issue per unknown field (naming it and the allowed fields), and
 * `required` for a missing field instead of "expected string, received undefined".
 */
export function issuesFromZod(
  error: z.ZodError,
  allowedFields: readonly string[],
  prefix = '',
): ValidationIssue[] {
  return error.issues.flatMap((issue): ValidationIssue[] => {
    const path = formatPath(issue.path, prefix);
    if (issue.code === 'unrecognized_keys') {
      const allowed =
        issue.path.length > 0
          ? ''
          : allowedFields.length > 0
            ? `; allowed fields: ${allowedFields.join(', ')}`
            : '; this action takes no fields';
      return issue.keys.map((key) => ({
        path: joinPath(path, shorten(key)),
        message: `unknown field${allowed}`,
      }));
    }
    if (issue.code === 'invalid_type' && issue.input === undefined) {
      return [{ path, message: 'required' }];
    }
    return [{ path, message: issue.message }];
  });
}

/** Parses with a strict zod schema; throws a `ValidationError` listing every problem. */
export function parseStrict<Schema extends z.ZodObject>(
  schema: Schema,
  input: unknown,
  prefix = '',
): { value: z.output<Schema> } | { issues: ValidationIssue[] } {
  const parsed = schema.safeParse(input, { reportInput: true });
  if (parsed.success) return { value: parsed.data };
  return { issues: issuesFromZod(parsed.error, Object.keys(schema.shape), prefix) };
}

/** Runs `check`, turning a thrown `ValidationError` into its issues. */
export function collectIssues<Value>(check: () => Value): { value: Value } | { issues: ValidationIssue[] } {
  try {
    return { value: check() };
  } catch (error) {
    if (error instanceof ValidationError) return { issues: [...error.issues] };
    throw error;
  }
}

export function throwIfAny(issues: readonly ValidationIssue[]): void {
  if (issues.length > 0) throw new ValidationError(issues);
}
