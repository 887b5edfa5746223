/**
 * Size limits, checked where input enters (admin API) and where results are written, so nothing is
 * ever truncated: DynamoDB items hold at most 400 KB (payload and result share one job item) and
 * SQS messages 256 KB (payload plus the job's envelope).
 */
export const LIMITS = {
  /** A schedule's or job's payload, as UTF-8 JSON. */
  payloadBytes: 128 * 1024,
  /** A handler's return value, as UTF-8 JSON; larger ones become an `error` result that says so. */
  returnValueBytes: 128 * 1024,
  /** Ids of schedules and jobs. */
  idLength: 200,
  tagsPerSchedule: 20,
  tagLength: 64,
  /** Jobs in one `add_jobs` call. */
  bulkJobs: 1_000,
  /** A cron expression: listing every value of every field by hand takes about 530, real ones far fewer. */
  cronExpressionLength: 512,
  /** The longest an SQS message can be delayed. */
  maxQueueDelaySeconds: 900,
} as const;

/** The size of a value as UTF-8 JSON, in bytes. */
export function jsonByteLength(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}
