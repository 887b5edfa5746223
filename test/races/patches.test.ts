import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Each patch re-introduces one race the simulation's CI budget must find (`test/races/find.sh` runs
// them); this only checks that they still apply, so that none rots silently as lib changes.
const RACES = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(RACES, '../..');
const PATCHES = readdirSync(RACES)
  .filter((file) => file.endsWith('.patch'))
  .sort();

/** The files a patch changes, from its `diff --git a/… b/…` lines. */
function filesOf(patch: string): string[] {
  const text = readFileSync(join(RACES, patch), 'utf8');
  return [...text.matchAll(/^diff --git a\/(\S+) b\//gm)].map((match) => match[1] as string);
}

describe('the races re-introduced for the simulation to find (test/races)', () => {
  it('keeps one patch for each race, each described in the README', () => {
    const readme = readFileSync(join(RACES, 'README.md'), 'utf8');

    expect(PATCHES).toEqual([
      'attempts-go-back.patch',
      'line-keeps-older.patch',
      'lost-hold-answer.patch',
      'lost-rate-booking.patch',
      'replay-recounts.patch',
      'take-back-send.patch',
      'takeover-first-start.patch',
      'woken-duplicate.patch',
      'woken-keeps-older.patch',
    ]);
    for (const patch of PATCHES) expect(readme).toContain(`\`${patch}\``);
  });

  it.each(PATCHES)(
    '%s changes only lib (what the simulation runs) and applies to the tree as it is',
    (patch) => {
      const files = filesOf(patch);
      const check = () =>
        execFileSync('git', ['apply', '--check', join(RACES, patch)], { cwd: ROOT, stdio: 'pipe' });

      expect(files.length).toBeGreaterThan(0);
      expect(files.filter((file) => !file.startsWith('lib/'))).toEqual([]);
      expect(check).not.toThrow();
    },
  );
});
