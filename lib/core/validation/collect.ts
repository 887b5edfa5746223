import { ValidationError, type ValidationIssue } from '../errors';

/** Runs `check`, turning a thrown `ValidationError` into its issues (so a caller can report them with others). */
export function collectIssues<Value>(check: () => Value): { value: Value } | { issues: ValidationIssue[] } {
  try {
    return { value: check() };
  } catch (error) {
    if (error instanceof ValidationError) return { issues: [...error.issues] };
    throw error;
  }
}
