// DOM helpers of the page's views.

/** Sets an element's text only when it changed, so screen readers and selections are not disturbed. */
export function setText(node: HTMLElement, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

/** `document.createElement` with a class and text. */
export function element<Tag extends keyof HTMLElementTagNameMap>(
  tag: Tag,
  className = '',
  text?: string,
): HTMLElementTagNameMap[Tag] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The element with `id`, which index.html has: a missing one is a bug of the page. */
export function byId<Kind extends HTMLElement = HTMLElement>(id: string): Kind {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node as Kind;
}

/** A table cell holding a bar and its fill; the bar is hidden from screen readers (a count beside it says the same). */
export function barCell(): { cell: HTMLTableCellElement; bar: HTMLDivElement; fill: HTMLSpanElement } {
  const cell = element('td');
  const bar = element('div', 'bar');
  bar.setAttribute('aria-hidden', 'true');
  const fill = element('span');
  bar.append(fill);
  cell.append(bar);
  return { cell, bar, fill };
}

/**
 * Shows one child of `container` per item, in the items' order: each created once per key and then
 * updated in place, so focus, open details and selections survive a refresh; the children of keys no
 * longer listed are removed.
 */
export function keyedChildren<Item, View extends { node: HTMLElement }, Context = undefined>(
  container: HTMLElement,
  keyOf: (item: Item) => string,
  create: (item: Item) => View,
  update: (view: View, item: Item, context: Context) => void,
): (items: readonly Item[], context: Context) => void {
  const views = new Map<string, View>();
  return (items, context) => {
    const seen = new Set<string>();
    let previous: HTMLElement | null = null;
    for (const item of items) {
      const key = keyOf(item);
      seen.add(key);
      let view = views.get(key);
      if (!view) {
        view = create(item);
        views.set(key, view);
      }
      update(view, item, context);
      const expectedPlace: ChildNode | null = previous ? previous.nextSibling : container.firstChild;
      if (expectedPlace !== view.node) container.insertBefore(view.node, expectedPlace);
      previous = view.node;
    }
    for (const [key, view] of views) {
      if (!seen.has(key)) {
        view.node.remove();
        views.delete(key);
      }
    }
  };
}
