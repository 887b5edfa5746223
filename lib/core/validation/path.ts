import { shorten } from '../quote';

/** One step of a field path: a key or index, or a Standard Schema segment (`{ key }`). */
export type PathSegment = PropertyKey | { readonly key: PropertyKey };

/**
 * How field paths read in every message: names joined with dots, indexes in brackets, field names
 * a caller sent shortened (they can be of any length).
 *
 * @example
 * formatPath(['triggers', 1, 'timezone'], 'trigger'); // 'trigger.triggers[1].timezone'
 * formatPath([{ key: 'team' }], 'jobs[3].payload');  // 'jobs[3].payload.team'
 */
export function formatPath(segments: readonly PathSegment[], prefix = ''): string {
  let path = prefix;
  for (const segment of segments) {
    const key = typeof segment === 'object' ? segment.key : segment;
    if (typeof key === 'number') path += `[${key}]`;
    else path = joinPath(path, shorten(String(key)));
  }
  return path;
}

/** Joins a field path under a parent path (`jobs[2]` + `payload` → `jobs[2].payload`). */
export function joinPath(parent: string, child: string): string {
  if (!parent) return child;
  if (!child) return parent;
  return child.startsWith('[') ? `${parent}${child}` : `${parent}.${child}`;
}
