/**
 * The known name closest to `name`, for "did you mean" messages: by edit distance (a swap of two
 * neighbouring letters counts once), ignoring case, `_` and `-`. `near` says whether it is close enough
 * to be the likely intended one: a distance of at most a quarter of the name's length (at least 2), or
 * one name starting with the other (`timeout` for `timeoutSeconds`).
 */
export function closestName(
  name: string,
  known: readonly string[],
): { name: string; near: boolean } | undefined {
  const plain = (text: string) => text.toLowerCase().replace(/[_-]/g, '');
  const wanted = plain(name);
  const startsAlike = (other: string) =>
    Math.min(wanted.length, other.length) >= 3 && (other.startsWith(wanted) || wanted.startsWith(other));
  let best: { name: string; distance: number; prefix: boolean } | undefined;
  for (const candidate of known) {
    const other = plain(candidate);
    const found = { name: candidate, distance: editDistance(wanted, other), prefix: startsAlike(other) };
    const better =
      best === undefined ||
      (found.prefix && !best.prefix) ||
      (found.prefix === best.prefix && found.distance < best.distance);
    if (better) best = found;
  }
  if (best === undefined) return undefined;
  const near = best.prefix || best.distance <= Math.max(2, Math.floor(wanted.length / 4));
  return { name: best.name, near };
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance = Math.min(distance, at(i - 2, j - 2) + 1);
      }
      (rows[i] as number[])[j] = distance;
    }
  }
  return at(a.length, b.length);
}
