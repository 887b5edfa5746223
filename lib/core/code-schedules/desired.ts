import type { WireSchedule } from '../admin-contract/schedules';
import { DEFAULT_PRIORITY, type Priority } from '../model/priority';
import { hash53 } from '../string-hash';

/**
 * The fields of a schedule that its declaration in code sets, by their admin API names, each explicit
 * (defaults filled in): what a deploy writes, and what the plan compares with the stored schedule.
 */
export type DeclaredFields = Pick<
  WireSchedule,
  | 'task'
  | 'trigger'
  | 'payload'
  | 'coalesce'
  | 'misfire_grace_seconds'
  | 'max_jitter_seconds'
  | 'tags'
  | 'metadata'
  | 'description'
  | 'max_attempts'
  | 'backoff_seconds'
  | 'timeout_seconds'
  | 'result_ttl_seconds'
  | 'keep_finished'
> & {
  /** Explicit, `normal` included (the wire leaves it out). */
  priority: Priority;
};

export type DeclaredField = keyof DeclaredFields;

/** Every declared field, once (a field missing here fails to compile). */
const FIELDS: Readonly<Record<DeclaredField, true>> = {
  task: true,
  trigger: true,
  payload: true,
  coalesce: true,
  misfire_grace_seconds: true,
  max_jitter_seconds: true,
  tags: true,
  metadata: true,
  description: true,
  priority: true,
  max_attempts: true,
  backoff_seconds: true,
  timeout_seconds: true,
  result_ttl_seconds: true,
  keep_finished: true,
};
export const DECLARED_FIELDS = Object.keys(FIELDS) as readonly DeclaredField[];

/** A schedule as code declares it: its id, where it is declared, and its fields. */
export interface DesiredSchedule {
  id: string;
  /** `functions/send-report.ts`, or the CDK app's `schedules` prop. */
  declaredIn: string;
  fields: DeclaredFields;
}

/** The fields of a stored schedule (as the admin API answers it) that a declaration sets. */
export function storedFields(schedule: WireSchedule): DeclaredFields {
  return {
    task: schedule.task,
    trigger: schedule.trigger,
    payload: schedule.payload,
    coalesce: schedule.coalesce,
    misfire_grace_seconds: schedule.misfire_grace_seconds,
    max_jitter_seconds: schedule.max_jitter_seconds,
    tags: schedule.tags,
    metadata: schedule.metadata,
    description: schedule.description,
    priority: schedule.priority ?? DEFAULT_PRIORITY,
    max_attempts: schedule.max_attempts,
    backoff_seconds: schedule.backoff_seconds,
    timeout_seconds: schedule.timeout_seconds,
    result_ttl_seconds: schedule.result_ttl_seconds,
    keep_finished: schedule.keep_finished,
  };
}

/** The fields whose values differ (JSON equality: the order of an object's keys does not count). */
export function changedFields(desired: DeclaredFields, stored: DeclaredFields): DeclaredField[] {
  return DECLARED_FIELDS.filter((field) => canonicalJson(desired[field]) !== canonicalJson(stored[field]));
}

/** A short fingerprint of a definition: the same fields give the same text on every machine. */
export function definitionFingerprint(fields: DeclaredFields): string {
  return fingerprint(canonicalJson(fields));
}

/** The revision of a declared set: the fingerprint of every schedule in it, in id order. */
export function revisionOf(desired: readonly DesiredSchedule[]): string {
  const sorted = [...desired].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return fingerprint(canonicalJson(sorted.map((schedule) => [schedule.id, schedule.fields])));
}

/** JSON with every object's keys sorted, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    typeof inner === 'object' && inner !== null && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/**
 * 106 bits of two seeded 53-bit string hashes (cyrb53), as 28 hex digits: enough to tell definitions
 * apart, and computed without I/O or a crypto module (the core has neither).
 */
function fingerprint(text: string): string {
  return `${hash53(text, 0x5d1a).toString(16).padStart(14, '0')}${hash53(text, 0x0c0d).toString(16).padStart(14, '0')}`;
}
