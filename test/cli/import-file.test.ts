import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readImportFile } from '../../lib/cli/commands/import/read-file';

async function fileWith(name: string, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sundial-import-file-'));
  await writeFile(join(dir, name), text);
  return dir;
}

describe('import files', () => {
  it('reads schedules and jobs from YAML and JSON', async () => {
    const yamlDir = await fileWith('a.yaml', 'schedules:\n  - { id: a, task: t }\njobs:\n  - { task: t }\n');
    expect(await readImportFile('a.yaml', yamlDir)).toEqual({
      schedules: [{ id: 'a', task: 't' }],
      jobs: [{ task: 't' }],
    });
    const jsonDir = await fileWith('b.json', JSON.stringify({ jobs: [{ task: 't' }] }));
    expect(await readImportFile('b.json', jsonDir)).toEqual({ schedules: [], jobs: [{ task: 't' }] });
  });

  it.each([
    ['c.txt', 'x', 'c.txt: give a .json, .yaml or .yml file'],
    ['d.yaml', 'schedules: [unclosed', 'd.yaml: not valid YAML ('],
    ['e.json', '{"jobs": [', 'e.json: not valid JSON ('],
    ['f.yaml', '- just a list', 'f.yaml: must hold an object with a "schedules" and/or a "jobs" list'],
    ['g.yaml', 'schedule: []', 'g.yaml: unknown key "schedule"; allowed: "schedules", "jobs"'],
    ['h.yaml', 'jobs: { task: t }', 'h.yaml: "jobs" must be a list'],
    ['i.yaml', 'schedules: []', 'i.yaml: holds no schedules and no jobs'],
  ])('rejects %s with a message naming the file', async (name, text, message) => {
    const dir = await fileWith(name, text);
    await expect(readImportFile(name, dir)).rejects.toThrow(message);
  });

  it('names a file that cannot be read', async () => {
    await expect(readImportFile('missing.yaml', tmpdir())).rejects.toThrow(
      'missing.yaml: cannot read the file (ENOENT)',
    );
  });
});
