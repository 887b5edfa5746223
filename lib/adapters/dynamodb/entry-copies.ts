import type { MessageCopy } from '../../core/ports/waiting-line';
import type { Expressions } from './expressions';

// Which copy of its job's message a line entry item (`WAIT#` or `WOKEN#`) carries, as attributes that
// conditions read: `attempt`, and for a fire's first attempt the revision it was sent under.

const CREATED = 'revisionCreatedAt';
const VERSION = 'revisionVersion';

/** The attributes an entry item carrying `copy` has. */
export function copyAttributes({ attempt, revision }: MessageCopy): Record<string, number> {
  return { attempt, ...(revision && { [CREATED]: revision.createdAt, [VERSION]: revision.version }) };
}

/** Sets an entry item's copy attributes to `copy`'s (removing a revision it does not have). */
export function setCopy(update: Expressions, copy: MessageCopy): Expressions {
  update.set('attempt', copy.attempt);
  update.setOrRemove(CREATED, copy.revision?.createdAt);
  return update.setOrRemove(VERSION, copy.revision?.version);
}

/** `sameCopy` as a condition: the entry item still carries `copy`. */
export function carriesCopy(e: Expressions, { attempt, revision }: MessageCopy): string {
  const sameAttempt = `${e.name('attempt')} = ${e.value(attempt)}`;
  if (!revision) return sameAttempt;
  const created = e.name(CREATED);
  const sameRevision = `${created} = ${e.value(revision.createdAt)} AND ${e.name(VERSION)} = ${e.value(revision.version)}`;
  return `${sameAttempt} AND (attribute_not_exists(${created}) OR (${sameRevision}))`;
}

/** `lineKeeps` as a put's condition: the entry is written unless the one held is a later copy. */
export function keptUnlessHeldIsLater(e: Expressions, { attempt, revision }: MessageCopy): string {
  const [held, joining] = [e.name('attempt'), e.value(attempt)];
  if (!revision) return `attribute_not_exists(pk) OR ${held} <= ${joining}`;
  const [created, version] = [e.name(CREATED), e.name(VERSION)];
  const [joiningCreated, joiningVersion] = [e.value(revision.createdAt), e.value(revision.version)];
  const newerRevision =
    `attribute_not_exists(${created}) OR ${created} < ${joiningCreated}` +
    ` OR (${created} = ${joiningCreated} AND ${version} <= ${joiningVersion})`;
  return `attribute_not_exists(pk) OR ${held} < ${joining} OR (${held} = ${joining} AND (${newerRevision}))`;
}
