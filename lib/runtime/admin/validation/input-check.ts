import type { z } from 'zod';
import type { EpochMs } from '../../../core/clock';
import { TaskNotFoundError, ValidationError, type ValidationIssue } from '../../../core/errors';
import type { JsonValue } from '../../../core/json';
import { quote } from '../../../core/quote';
import { isStorablePayload } from '../../../core/storable-json';
import type { TriggerSpec } from '../../../core/triggers';
import { collectIssues, joinPath, parseWithIssues } from '../../../core/validation';
import type { RegisteredTask, TaskRegistry } from '../deps';
import { payloadSchemaIssues } from './task-payload';
import { resolveTrigger } from './trigger-input';

/** A trigger ready to store, with its first fire time at or after now. */
export interface ResolvedTrigger {
  trigger: TriggerSpec;
  nextFireAt: EpochMs;
}

/**
 * Collects every problem of one request (or one item of `add_jobs`) before anything is written:
 * the strict schema, the trigger, the task and the payload against the task's `payloadSchema`.
 * `finish` throws a `ValidationError` listing all of them (an unknown task included), or
 * `unknown_task` when that is the only problem.
 */
export class InputCheck {
  private readonly issues: ValidationIssue[] = [];
  private unknownTask: string | undefined;

  constructor(
    private readonly registry: TaskRegistry,
    /** Prefixed to every path: `jobs[3]` for an item of `add_jobs`. */
    private readonly prefix = '',
  ) {}

  /** The parsed parameters, or undefined when the schema found problems (recorded). */
  params<Schema extends z.ZodObject>(schema: Schema, raw: unknown): z.output<Schema> | undefined {
    const parsed = parseWithIssues(schema, raw, this.prefix);
    if ('issues' in parsed) {
      this.issues.push(...parsed.issues);
      return undefined;
    }
    return parsed.value;
  }

  /** The trigger with intervals anchored and its next fire time, or undefined (problems recorded). */
  trigger(raw: unknown, field: string, now: EpochMs): ResolvedTrigger | undefined {
    if (raw === undefined) return undefined;
    const resolved = collectIssues(() => resolveTrigger(raw, this.path(field), now));
    if ('issues' in resolved) {
      this.issues.push(...resolved.issues);
      return undefined;
    }
    return resolved.value;
  }

  /** The registered task named by `raw`, or undefined (unknown names are remembered for `finish`). */
  task(raw: unknown): RegisteredTask | undefined {
    if (typeof raw !== 'string' || raw === '') return undefined;
    const task = this.registry.get(raw);
    if (!task) this.unknownTask = raw;
    return task;
  }

  /** Checks the payload against the task's `payloadSchema` (when both are known and the payload is JSON). */
  payload(task: RegisteredTask | undefined, payload: JsonValue | undefined, field = 'payload'): void {
    if (!task || payload === undefined) return;
    this.issues.push(...payloadSchemaIssues(task, payload, this.path(field)));
  }

  /** The raw payload to check against the task's schema: the default when absent, undefined when not storable. */
  static payloadToCheck(raw: unknown, fallback: JsonValue): JsonValue | undefined {
    if (raw === undefined) return fallback;
    return isStorablePayload(raw) ? raw : undefined;
  }

  /** Records a problem found by the action itself (for cross-field rules). */
  problem(field: string, message: string): void {
    this.issues.push({ path: this.path(field), message });
  }

  get failed(): boolean {
    return this.issues.length > 0 || this.unknownTask !== undefined;
  }

  /** Throws everything found; returns when the input is valid. */
  finish(): void {
    if (this.unknownTask !== undefined) {
      const known = this.registry.ids();
      if (this.issues.length === 0) throw new TaskNotFoundError(this.unknownTask, known);
      this.issues.push({
        path: this.path('task'),
        message: `${quote(this.unknownTask)} is not a registered task; known tasks: ${known.join(', ') || '(none)'}`,
      });
    }
    if (this.issues.length > 0) throw new ValidationError(this.issues);
  }

  /**
   * Throws everything found, or returns the checked values, none of them undefined: each is only
   * undefined when its check recorded a problem.
   */
  valid<Values extends Record<string, unknown>>(
    values: Values,
  ): { [Key in keyof Values]: NonNullable<Values[Key]> } {
    this.finish();
    const missing = Object.entries(values).filter(([, value]) => value === undefined);
    if (missing.length > 0) {
      throw new Error(`input check passed without ${missing.map(([key]) => key).join(', ')}`);
    }
    return values as { [Key in keyof Values]: NonNullable<Values[Key]> };
  }

  private path(field: string): string {
    return joinPath(this.prefix, field);
  }
}
