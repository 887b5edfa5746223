import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_LOCAL_PORT } from '../../lib/local/platform';
import { EXIT_USAGE } from '../../lib/local/script-flags';
import { startFlags } from '../../lib/local/start-flags';
import { parseCollecting } from '../support/script-flags';

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('npm start flags', () => {
  it('has defaults for every flag but --data-dir', () => {
    vi.stubEnv('SUNDIAL_PORT', undefined);
    expect(parseCollecting(startFlags(), []).flags).toEqual({
      port: DEFAULT_LOCAL_PORT,
      tickSeconds: 1,
      workers: 4,
    });
  });

  it('reads typed values given as --flag value or --flag=value', () => {
    const { flags } = parseCollecting(startFlags(), [
      '--port=4800',
      '--data-dir',
      '.sundial-data',
      '--tick-seconds=0.5',
      '--workers',
      '8',
    ]);
    expect(flags).toEqual({ port: 4800, dataDir: '.sundial-data', tickSeconds: 0.5, workers: 8 });
  });

  it('takes the port from SUNDIAL_PORT unless --port is given', () => {
    vi.stubEnv('SUNDIAL_PORT', '4811');
    expect(parseCollecting(startFlags(), []).flags?.port).toBe(4811);
    expect(parseCollecting(startFlags(), ['--port', '4812']).flags?.port).toBe(4812);
  });

  it.each([
    [
      ['--workers', '-2'],
      "error: option '--workers <n>' argument '-2' is invalid. Expected a whole number of at least 1.",
    ],
    [
      ['--tick-seconds', '0'],
      "error: option '--tick-seconds <s>' argument '0' is invalid. Expected a number above 0.",
    ],
    [
      ['--port', '70000'],
      "error: option '--port <n>' argument '70000' is invalid. Expected a whole number from 1 to 65535.",
    ],
    [['--worker', '2'], "error: unknown option '--worker'\n(Did you mean --workers?)"],
  ])('exits 2 on %j, naming the flag', (argv, message) => {
    const result = parseCollecting(startFlags(), argv);
    expect(result.exitCode).toBe(EXIT_USAGE);
    expect(result.stderr).toBe(`${message}\nRun 'npm start -- --help' for its options.\n`);
  });

  it('prints the generated help and exits 0 with --help', () => {
    const result = parseCollecting(startFlags(), ['--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^Usage: npm start -- \[options\]\n/);
    expect(result.stdout).toMatch(
      /\n {2}--port <n> +port of the admin API and dashboard on 127\.0\.0\.1 \(default:\s+4750, env: SUNDIAL_PORT\)\n/,
    );
    for (const flag of ['--data-dir <dir>', '--tick-seconds <s>', '--workers <n>', '-h, --help']) {
      expect(result.stdout).toContain(`\n  ${flag} `);
    }
  });
});
