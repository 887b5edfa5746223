import { LIMITS } from './limits';

/**
 * How error messages repeat what a caller sent: enough to recognise it, never all of it. An answer
 * that echoed a 1 MB action name whole would be 1 MB (and a Lambda answer is at most 6 MB).
 */
export const MAX_QUOTED_CHARS = 60;

/**
 * `text` in single quotes for a message, cut after `maxChars` characters with `…` and its length.
 *
 * @example
 * `unknown action ${quote(action)}` // "unknown action 'delete_everything'"
 * quote('x'.repeat(1_000_000))      // "'xxx…xxx…' (1000000 characters)", 60 x's
 */
export function quote(text: string, maxChars = MAX_QUOTED_CHARS): string {
  const head = headOf(text, maxChars);
  return head === undefined ? `'${text}'` : `'${head}…' (${text.length} characters)`;
}

/** An id in quotes: ids the API accepted (a job id has up to two ids) are never cut; others are. */
export function quoteId(id: string): string {
  return quote(id, 2 * LIMITS.idLength + 1);
}

/** `text` unquoted (a field name in a path, a message), cut like {@link quote}. */
export function shorten(text: string, maxChars = MAX_QUOTED_CHARS): string {
  const head = headOf(text, maxChars);
  return head === undefined ? text : `${head}… (${text.length} characters)`;
}

/** The first `maxChars` characters when `text` is longer (never half a surrogate pair), else undefined. */
function headOf(text: string, maxChars: number): string | undefined {
  if (text.length <= maxChars) return undefined;
  const head = text.slice(0, maxChars);
  return /[\uD800-\uDBFF]$/.test(head) ? head.slice(0, -1) : head;
}
