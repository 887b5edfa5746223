/**
 * Triggers: JSON descriptions of fire times (`cron`, `interval`, `calendar_interval`, `date`,
 * `and`, `or`, `eventbridge`), validated with zod and compiled into pure `next(from)` functions.
 */
export { anchorIntervals } from './anchor';
export { compileTrigger, previewFireTimes, triggerTimezone } from './compile';
export { canonicalCronExpression } from './cron/cron-expression';
export { MaxIterationsReachedError } from './errors';
export { isEventBridgeExpression } from './eventbridge/expression';
export { type FireTimeSource, withinWindow } from './fire-time-source';
export { MAX_NESTING_DEPTH, parseTrigger } from './parse';
export {
  type AndTriggerSpec,
  type CalendarIntervalTriggerSpec,
  type CronTriggerSpec,
  type DateTriggerSpec,
  type EventBridgeTriggerSpec,
  type IntervalTriggerSpec,
  type OrTriggerSpec,
  TRIGGER_TYPES,
  type TriggerSpec,
  type TriggerType,
  triggerSchema,
} from './schema';
export { type Parsed, parseIsoDate, parseIsoInstant } from './timestamps';
export { isKnownTimeZone } from './zones';
