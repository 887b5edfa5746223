import { encodeJobMessage } from '../../core/model/job-message';
import type { JobMessage } from '../../core/ports/job-queue';

/** SendMessageBatch holds at most ten entries. */
export const MAX_ENTRIES_PER_BATCH = 10;

/**
 * What a batch's messages may add up to by default: 256 KiB is what older regions and emulators
 * allow (most regions allow 1 MiB today), so the default is safe everywhere.
 */
export const DEFAULT_MAX_BATCH_BYTES = 256 * 1024;

/**
 * SQS counts a message as its body plus its attributes (none here) in UTF-8 bytes; this margin per
 * message keeps a batch clear of the limit whatever else a region might count.
 */
const MARGIN_BYTES_PER_MESSAGE = 100;

/** A job message ready to send: its body and the bytes it counts for in a batch. */
export interface OutgoingMessage {
  message: JobMessage;
  body: string;
  bytes: number;
}

export function outgoingMessage(message: JobMessage): OutgoingMessage {
  return withBody(message, sqsSafeJson(encodeJobMessage(message)));
}

function withBody(message: JobMessage, body: string): OutgoingMessage {
  return { message, body, bytes: Buffer.byteLength(body, 'utf8') + MARGIN_BYTES_PER_MESSAGE };
}

/**
 * The message with every character outside the Basic Multilingual Plane (an emoji) written as the JSON
 * escapes of its two UTF-16 halves (`\uD83C\uDF05`), which decode to the same string; undefined when
 * it has none. SQS takes such characters raw, but queues that allow only the BMP (the SQS emulator)
 * refuse the message; escaped, every queue takes it. In JSON they can only stand inside strings, and
 * only as pairs (JSON.stringify escapes a lone surrogate).
 */
export function withBmpOnlyBody(outgoing: OutgoingMessage): OutgoingMessage | undefined {
  const body = outgoing.body.replace(
    /[\uD800-\uDFFF]/g,
    (half) => `\\u${half.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return body === outgoing.body ? undefined : withBody(outgoing.message, body);
}

/**
 * Packs messages, in order, into batches of at most ten that add up to at most `maxBatchBytes`; a
 * message larger than that on its own goes alone (the service decides whether it fits).
 */
export function packBatches(
  messages: readonly OutgoingMessage[],
  maxBatchBytes: number,
): OutgoingMessage[][] {
  const batches: OutgoingMessage[][] = [];
  let batch: OutgoingMessage[] = [];
  let bytes = 0;
  for (const message of messages) {
    const full = batch.length === MAX_ENTRIES_PER_BATCH || bytes + message.bytes > maxBatchBytes;
    if (batch.length > 0 && full) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(message);
    bytes += message.bytes;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * SQS refuses U+FFFE and U+FFFF in a message body (JSON.stringify already escapes control characters
 * and lone surrogates). In JSON they can only stand inside strings, where `\uXXXX` means the same.
 */
function sqsSafeJson(json: string): string {
  return json.replace(/[\uFFFE\uFFFF]/g, (char) => `\\u${char.charCodeAt(0).toString(16)}`);
}
