import { quote } from '../../quote';
import { parseEventBridgeExpression } from './expression';

/**
 * For a Sundial cron expression that failed to parse and looks like EventBridge's dialect (a `?`,
 * or six fields ending in a four-digit year), a sentence saying how to write it as one; otherwise
 * undefined. `0 10 ? * MON *` would otherwise be read as six Sundial fields, seconds first, and
 * the message would talk about its hour field.
 *
 * @example
 * eventBridgeHint('0 10 ? * MON *');
 * // "it looks like an EventBridge Scheduler cron expression: write it as 'cron(0 10 ? * MON *)' in a trigger of type 'eventbridge'"
 */
export function eventBridgeHint(expression: string): string | undefined {
  const fields = expression.trim().split(/\s+/);
  const hasYear = fields.length === 6 && /^\d{4}\b/.test(fields[5] ?? '');
  if (!fields.some((field) => field.includes('?')) && !hasYear) return undefined;
  const written = fields.length === 5 ? [...fields, '*'] : fields;
  const candidate = `cron(${written.join(' ')})`;
  const parsed = parseEventBridgeExpression(candidate);
  const where = "in a trigger of type 'eventbridge' (docs/triggers.md)";
  if (parsed.ok) {
    return `it looks like an EventBridge Scheduler cron expression: write it as ${quote(candidate)} ${where}`;
  }
  return `it looks like an EventBridge Scheduler cron expression, but as one it is not valid either: ${parsed.problem}`;
}
