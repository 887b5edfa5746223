import type { Page } from 'playwright-core';

/**
 * What is wrong with the page's layout as the browser draws it, one line a problem: the page scrolls
 * sideways; an element (visible, not screen-reader-only) reaches outside its panel; a button is covered
 * or clipped, tested by asking the browser what is drawn at its corners and centre.
 */
export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const name = (node: Element) => {
      const text = node.getAttribute('aria-label') ?? node.textContent ?? '';
      const label = text.replace(/\s+/g, ' ').trim().slice(0, 40);
      const classes =
        node.className && typeof node.className === 'string' ? `.${node.className.split(' ').join('.')}` : '';
      return `<${node.tagName.toLowerCase()}${classes}> '${label}'`;
    };
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) {
      problems.push(`the page scrolls sideways: ${root.scrollWidth} px of content in ${root.clientWidth}`);
    }
    const shown = (node: Element) => {
      const rect = node.getBoundingClientRect();
      // checkVisibility: not in a closed <details> (drawn nowhere, though the browser still lays it out)
      return (
        rect.width > 0 &&
        rect.height > 0 &&
        node.checkVisibility() &&
        node.closest('.visually-hidden') === null
      );
    };
    for (const panel of document.querySelectorAll('.panel')) {
      const box = panel.getBoundingClientRect();
      const heading = panel.querySelector('h2')?.firstChild?.textContent?.trim() ?? panel.id;
      // The outermost element that reaches out is named; what it holds goes with it.
      const outside = new Set<Element>();
      for (const node of panel.querySelectorAll('*')) {
        if (!shown(node)) continue;
        const rect = node.getBoundingClientRect();
        const beyond = Math.max(box.left - rect.left, rect.right - box.right, rect.bottom - box.bottom);
        if (beyond <= 0.5) continue;
        outside.add(node);
        if (node.parentElement !== null && outside.has(node.parentElement)) continue;
        problems.push(`${name(node)} reaches ${Math.round(beyond)} px outside the panel '${heading}'`);
      }
    }
    for (const button of document.querySelectorAll('main button')) {
      if (!shown(button)) continue;
      button.scrollIntoView({ block: 'center', inline: 'center' });
      const rect = button.getBoundingClientRect();
      const inset = 3;
      const points = [
        [rect.left + rect.width / 2, rect.top + rect.height / 2],
        [rect.left + inset, rect.top + inset],
        [rect.right - inset, rect.top + inset],
        [rect.left + inset, rect.bottom - inset],
        [rect.right - inset, rect.bottom - inset],
      ] as const;
      for (const [x, y] of points) {
        const hit = document.elementFromPoint(x, y);
        if (hit === null || !button.contains(hit)) {
          problems.push(
            `${name(button)} is covered at (${Math.round(x)}, ${Math.round(y)}) by ${hit ? name(hit) : 'nothing (off the page)'}`,
          );
          break;
        }
      }
    }
    window.scrollTo(0, 0);
    return problems;
  });
}
