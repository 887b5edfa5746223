import type { FiresTakenBack, NotedState } from '../../core/ports/schedule-store';
import type { Expressions } from './expressions';
import { withTakeBack } from './runs-take-back';
import { isNotedItem } from './schedule-items';
import type { StoredItem } from './store-context';

/**
 * The part of an admin write that depends on whether the schedule was read on due notes (ADR 0007), as
 * conditions to join with AND (none starts with AND).
 *
 * - Read on notes (`noted`): `runs` and `lastFireAt` come from its live note (less the take-back, whose
 *   own condition on the item's `lastFireAt` would compare with the stale one), and the write applies
 *   only while the item is still on notes at the version read. Nothing but an admin write (which bumps
 *   the version) changes a note-indexed item, so the version pins it.
 * - Read item-indexed: the write applies only while the item is not on notes, so a tick's conversion
 *   between the read and the write is not overwritten with the item's stale fire times.
 */
export function notedClauses(
  update: Expressions,
  noted: NotedState | undefined,
  takeBack: FiresTakenBack | undefined,
): string[] {
  const dueShard = update.name('dueShard');
  const dueAt = update.name('dueAt');
  const paused = update.name('paused');
  if (!noted) {
    const clauses = [
      `(attribute_exists(${dueShard}) OR attribute_not_exists(${dueAt}) OR ${paused} = ${update.value(true)})`,
    ];
    // `withTakeBack` answers ' AND <clauses>'.
    if (takeBack) clauses.push(withTakeBack(update, takeBack).replace(/^ AND /, ''));
    return clauses;
  }
  const runs = noted.runs - (takeBack?.count ?? 0);
  update.setOrRemove('runs', runs > 0 ? runs : null);
  update.setOrRemove('lastFireAt', takeBack ? takeBack.lastFireAt : noted.lastFireAt);
  return [
    `${update.name('version')} = ${update.value(noted.seenVersion)}`,
    `attribute_not_exists(${dueShard})`,
    `attribute_exists(${dueAt})`,
    `${paused} = ${update.value(false)}`,
  ];
}

/** A write's condition failed on `old` because of its notes: not on notes as read, or on notes unread. */
export function notesMoved(old: StoredItem, noted: NotedState | undefined): boolean {
  return noted ? old.version !== noted.seenVersion || !isNotedItem(old) : isNotedItem(old);
}
