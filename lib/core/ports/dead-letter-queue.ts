/** A message the worker cannot read, as it was received. */
export interface UnreadableMessage {
  /** The body exactly as received. */
  body: string;
  /** The id the jobs queue gave it. */
  messageId: string;
  /** Which fields were wrong (never their values). */
  reason: string;
}

/**
 * Where the worker moves a message it cannot read, at once, instead of letting it come back until the
 * jobs queue's redrive policy gives up on it (`maxReceiveCount` receives later).
 */
export interface DeadLetterQueue {
  /** Resolves once the message is stored in the dead-letter queue; rejects when it is not. */
  deadLetter(message: UnreadableMessage): Promise<void>;
}
