import { Expressions } from './expressions';
import type { StoredItem } from './store-context';

/** A change to one item: attributes to set, attributes to remove, and attributes to set only if absent. */
export interface ItemChange {
  set: StoredItem;
  remove: string[];
  keep?: StoredItem;
}

export function change(set: StoredItem, remove: string[] = []): ItemChange {
  const cleanSet: StoredItem = {};
  const cleanRemove = [...remove];
  for (const [attribute, value] of Object.entries(set)) {
    if (value === undefined) continue;
    if (value === null) cleanRemove.push(attribute);
    else cleanSet[attribute] = value;
  }
  return { set: cleanSet, remove: [...new Set(cleanRemove)].filter((attribute) => !(attribute in cleanSet)) };
}

/** The update expression for a change, sharing `expressions` with the condition. */
export function applyTo(expressions: Expressions, itemChange: ItemChange): Expressions {
  for (const [attribute, value] of Object.entries(itemChange.set)) expressions.set(attribute, value);
  if (itemChange.remove.length) expressions.remove(...itemChange.remove);
  for (const [attribute, value] of Object.entries(itemChange.keep ?? {})) {
    expressions.setExpression(
      attribute,
      `if_not_exists(${expressions.name(attribute)}, ${expressions.value(value)})`,
    );
  }
  return expressions;
}

/** The item as it is after `itemChange` was applied to `item`. */
export function changedItem(item: StoredItem, itemChange: ItemChange): StoredItem {
  const result: StoredItem = { ...item, ...itemChange.set };
  for (const attribute of itemChange.remove) delete result[attribute];
  for (const [attribute, value] of Object.entries(itemChange.keep ?? {})) result[attribute] ??= value;
  return result;
}

export { Expressions };
