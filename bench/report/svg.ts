/** Tiny SVG charts, written by hand (no dependency): stacked horizontal bars and a histogram. */

export interface StackedBar {
  label: string;
  parts: { name: string; value: number }[];
}

const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#7f7f7f'];
const FONT = 'font-family="system-ui, sans-serif"';

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function text(x: number, y: number, content: string, attributes = ''): string {
  const size = attributes.includes('font-size') ? '' : 'font-size="12" ';
  return `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${FONT} ${size}${attributes}>${escapeXml(content)}</text>`;
}

/** Horizontal stacked bars with a legend; returns an SVG group of the given width, and its height. */
export function stackedBars(
  title: string,
  bars: readonly StackedBar[],
  width: number,
  formatValue: (value: number) => string,
): { svg: string; height: number } {
  const labelWidth = 190;
  const barHeight = 22;
  const gap = 10;
  const top = 40;
  const names = [...new Set(bars.flatMap((bar) => bar.parts.map((part) => part.name)))];
  const totals = bars.map((bar) => bar.parts.reduce((sum, part) => sum + part.value, 0));
  const max = Math.max(...totals, Number.MIN_VALUE);
  const scale = (width - labelWidth - 90) / max;
  const parts: string[] = [text(0, 18, title, 'font-size="15" font-weight="bold"')];
  bars.forEach((bar, row) => {
    const y = top + row * (barHeight + gap);
    parts.push(text(0, y + 15, bar.label));
    let x = labelWidth;
    for (const part of bar.parts) {
      const w = part.value * scale;
      const color = COLORS[names.indexOf(part.name) % COLORS.length];
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${y}" width="${Math.max(0, w).toFixed(1)}" height="${barHeight}" fill="${color}"><title>${escapeXml(`${part.name}: ${formatValue(part.value)}`)}</title></rect>`,
      );
      x += w;
    }
    parts.push(text(x + 6, y + 15, formatValue(totals[row] ?? 0)));
  });
  const legendY = top + bars.length * (barHeight + gap) + 8;
  let legendX = labelWidth;
  for (const [index, name] of names.entries()) {
    parts.push(
      `<rect x="${legendX}" y="${legendY}" width="12" height="12" fill="${COLORS[index % COLORS.length]}"/>`,
    );
    parts.push(text(legendX + 16, legendY + 11, name));
    legendX += 24 + name.length * 7;
  }
  return { svg: parts.join('\n'), height: legendY + 24 };
}

/** A histogram of `values` in bins of `binWidth` from 0 to `limit`, plus one overflow bin. */
export function histogram(
  title: string,
  values: readonly number[],
  options: { width: number; height: number; binWidth: number; limit: number; unit: string },
): { svg: string; height: number } {
  const bins = Math.ceil(options.limit / options.binWidth);
  const counts = new Array<number>(bins + 1).fill(0);
  for (const value of values) {
    const bin = value >= options.limit ? bins : Math.max(0, Math.floor(value / options.binWidth));
    counts[bin] = (counts[bin] ?? 0) + 1;
  }
  const left = 50;
  const top = 30;
  const plotHeight = options.height - top - 40;
  const plotWidth = options.width - left - 10;
  const barWidth = plotWidth / counts.length;
  const max = Math.max(...counts, 1);
  const parts: string[] = [text(0, 18, title, 'font-size="15" font-weight="bold"')];
  parts.push(
    `<line x1="${left}" y1="${top + plotHeight}" x2="${left + plotWidth}" y2="${top + plotHeight}" stroke="#333"/>`,
  );
  counts.forEach((count, bin) => {
    const h = (count / max) * plotHeight;
    const x = left + bin * barWidth;
    const range =
      bin === bins
        ? `≥ ${options.limit} ${options.unit}`
        : `${bin * options.binWidth}–${(bin + 1) * options.binWidth} ${options.unit}`;
    parts.push(
      `<rect x="${x.toFixed(1)}" y="${(top + plotHeight - h).toFixed(1)}" width="${Math.max(1, barWidth - 1).toFixed(1)}" height="${h.toFixed(1)}" fill="${bin === bins ? '#d62728' : '#1f77b4'}"><title>${escapeXml(`${range}: ${count}`)}</title></rect>`,
    );
  });
  const ticks = 5;
  for (let tick = 0; tick <= ticks; tick++) {
    const value = (options.limit / ticks) * tick;
    const x = left + (value / options.binWidth) * barWidth;
    parts.push(text(x - 10, top + plotHeight + 16, `${value}`));
  }
  parts.push(text(left + plotWidth - 60, top + plotHeight + 16, `≥ ${options.limit}`, 'fill="#d62728"'));
  parts.push(text(left, top + plotHeight + 34, `${options.unit} (job start − fire time); bars: jobs`));
  parts.push(text(0, top + 12, `${max}`));
  return { svg: parts.join('\n'), height: options.height };
}

/** Stacks groups vertically into one SVG document. */
export function svgDocument(width: number, groups: readonly { svg: string; height: number }[]): string {
  let y = 10;
  const body = groups.map((group) => {
    const placed = `<g transform="translate(10, ${y})">\n${group.svg}\n</g>`;
    y += group.height + 30;
    return placed;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width + 20}" height="${y}" viewBox="0 0 ${width + 20} ${y}">\n<rect width="100%" height="100%" fill="white"/>\n${body.join('\n')}\n</svg>\n`;
}
