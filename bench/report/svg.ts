/** Tiny SVG charts, written by hand (no dependency): stacked horizontal bars, a histogram and lines. */

export interface StackedBar {
  label: string;
  parts: { name: string; value: number }[];
}

const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#7f7f7f'];
const FONT = 'font-family="system-ui, sans-serif"';
/** The width of an average character of a 12 px label, to size the room for labels. */
const CHAR_WIDTH = 6.5;

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
  // Wide enough for the longest label (about 6.5 px a character at 12 px), up to 40 % of the width;
  // a longer label is cut short, whole in its tooltip.
  const maxLabelWidth = Math.round(width * 0.4);
  const labelWidth = Math.min(
    maxLabelWidth,
    Math.max(190, ...bars.map((bar) => Math.ceil(bar.label.length * CHAR_WIDTH) + 12)),
  );
  const fits = Math.floor((labelWidth - 12) / CHAR_WIDTH);
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
    const label = bar.label.length > fits ? `${bar.label.slice(0, fits - 1)}…` : bar.label;
    parts.push(
      `<g>${text(0, y + 15, label)}${label === bar.label ? '' : `<title>${escapeXml(bar.label)}</title>`}</g>`,
    );
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
  const legendWidth = names.reduce((sum, name) => sum + 24 + name.length * 7, 0);
  let legendX = Math.max(0, Math.min(labelWidth, width - legendWidth));
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

export interface LineSeries {
  name: string;
  points: { x: number; y: number }[];
}

/** 1, 2 and 5 times each power of ten, from `low` to `high` (both such values). */
function logTicks(low: number, high: number): number[] {
  const ticks: number[] = [];
  for (let decade = 10 ** Math.floor(Math.log10(low)); decade <= high; decade *= 10) {
    for (const step of [1, 2, 5]) {
      const tick = decade * step;
      if (tick >= low * 0.9999 && tick <= high * 1.0001) ticks.push(tick);
    }
  }
  return ticks;
}

/** The largest 1, 2 or 5 times a power of ten at or below `value` (`down`), or the least at or above it. */
function niceLog(value: number, direction: 'down' | 'up'): number {
  const decade = 10 ** Math.floor(Math.log10(value));
  const steps = [1, 2, 5, 10].map((step) => decade * step);
  return direction === 'down'
    ? (steps.filter((step) => step <= value * 1.0001).at(-1) ?? decade)
    : (steps.find((step) => step >= value * 0.9999) ?? decade * 10);
}

/**
 * Lines of `series` (one colour each, a marker per point) over a linear x axis from `xMin` to `xMax`
 * and a log-scale y axis ticked at 1, 2 and 5 times each power of ten, from the tick below the least
 * value to the tick above the largest (with a little room); values at or below 0 are left out (a log
 * scale has no place for them). Returns an SVG group of the given width, and its height.
 */
export function lineChart(
  title: string,
  series: readonly LineSeries[],
  options: {
    width: number;
    height: number;
    xMin: number;
    xMax: number;
    xTicks: readonly number[];
    xLabel: string;
    yLabel: string;
    /** After a value in a point's tooltip (` ms`). */
    yUnit: string;
    formatX: (value: number) => string;
    formatY: (value: number) => string;
  },
): { svg: string; height: number } {
  const shown = series.map((line) => ({
    ...line,
    points: line.points.filter(
      (point) => Number.isFinite(point.x) && Number.isFinite(point.y) && point.y > 0,
    ),
  }));
  const ys = shown.flatMap((line) => line.points.map((point) => point.y));
  // A little room above and below the values, from and to a tick.
  const low = ys.length > 0 ? niceLog(Math.min(...ys) / 1.25, 'down') : 1;
  const high = Math.max(niceLog(low * 5, 'up'), ys.length > 0 ? niceLog(Math.max(...ys) * 1.25, 'up') : 1000);
  const left = 60;
  const top = 50;
  const plotWidth = options.width - left - 20;
  const plotHeight = options.height - top - 64;
  const xOf = (x: number) => left + ((x - options.xMin) / (options.xMax - options.xMin)) * plotWidth;
  const yOf = (y: number) =>
    top +
    plotHeight -
    ((Math.log10(y) - Math.log10(low)) / (Math.log10(high) - Math.log10(low))) * plotHeight;
  const bottom = top + plotHeight;
  const parts: string[] = [text(0, 18, title, 'font-size="15" font-weight="bold"')];
  for (const tick of logTicks(low, high)) {
    const y = yOf(tick);
    const decade = Math.abs(Math.log10(tick) - Math.round(Math.log10(tick))) < 1e-9;
    parts.push(
      `<line x1="${left}" y1="${y.toFixed(1)}" x2="${left + plotWidth}" y2="${y.toFixed(1)}" stroke="${decade ? '#bbb' : '#e5e5e5'}"/>`,
      text(left - 6, y + 4, options.formatY(tick), 'text-anchor="end"'),
    );
  }
  for (const tick of options.xTicks) {
    const x = xOf(tick);
    parts.push(
      `<line x1="${x.toFixed(1)}" y1="${bottom}" x2="${x.toFixed(1)}" y2="${bottom + 4}" stroke="#333"/>`,
      text(x, bottom + 18, options.formatX(tick), 'text-anchor="middle"'),
    );
  }
  parts.push(
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${bottom}" stroke="#333"/>`,
    `<line x1="${left}" y1="${bottom}" x2="${left + plotWidth}" y2="${bottom}" stroke="#333"/>`,
    text(left + plotWidth / 2, bottom + 36, options.xLabel, 'text-anchor="middle"'),
    text(0, top - 12, options.yLabel),
  );
  let legendX = left;
  shown.forEach((line, index) => {
    const color = COLORS[index % COLORS.length];
    const coordinates = line.points.map((point) => `${xOf(point.x).toFixed(1)},${yOf(point.y).toFixed(1)}`);
    parts.push(`<g data-series="${escapeXml(line.name)}">`);
    if (coordinates.length > 1) {
      parts.push(
        `<polyline points="${coordinates.join(' ')}" fill="none" stroke="${color}" stroke-width="2"/>`,
      );
    }
    for (const point of line.points) {
      parts.push(
        `<circle cx="${xOf(point.x).toFixed(1)}" cy="${yOf(point.y).toFixed(1)}" r="4" fill="${color}"><title>${escapeXml(`${line.name}, ${options.formatX(point.x)}: ${options.formatY(point.y)}${options.yUnit}`)}</title></circle>`,
      );
    }
    parts.push('</g>');
    parts.push(
      `<rect x="${legendX}" y="${bottom + 46}" width="12" height="12" fill="${color}"/>`,
      text(legendX + 16, bottom + 57, line.name),
    );
    legendX += 40 + line.name.length * 7;
  });
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
