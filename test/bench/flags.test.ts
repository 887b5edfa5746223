import { afterEach, describe, expect, it, vi } from 'vitest';
import { benchFlags, bundlesFlags, limitedFlags, soakFlags } from '../../bench/support/flags';
import { parseCollecting } from '../support/script-flags';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('npm run bench:limited flags', () => {
  it('runs the rate-limit backlog of the issue (500 jobs) unless told otherwise', () => {
    expect(parseCollecting(limitedFlags(), []).flags).toEqual({ rateJobs: 500 });
    expect(parseCollecting(limitedFlags(), ['--rate-jobs=0']).flags).toEqual({ rateJobs: 0 });
  });
});

describe('npm run bench:bundles flags', () => {
  it('times 15 processes per bundle into bench/results, and a baseline only when given one', () => {
    expect(parseCollecting(bundlesFlags(), []).flags).toEqual({ reps: 15, out: 'bench/results' });
    expect(parseCollecting(bundlesFlags(), ['--reps=3', '--baseline', '.cache/main/cdk.out']).flags).toEqual({
      reps: 3,
      baseline: '.cache/main/cdk.out',
      out: 'bench/results',
    });
  });

  it('refuses no processes at all', () => {
    const refused = parseCollecting(bundlesFlags(), ['--reps', '0']);

    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/--reps <n>.*'0' is invalid/);
  });
});

describe('npm run bench flags', () => {
  it('has the documented defaults', () => {
    expect(parseCollecting(benchFlags(), []).flags).toEqual({
      sizes: [1000, 10_000, 50_000],
      lagLoads: [25, 50, 75],
      lagInterval: 5,
      lagSeconds: 120,
      limitedJobs: 30,
      rateJobs: 500,
      spreadSchedules: 2000,
      spreadLimit: 50,
      sendPhaseTolerance: 50,
      herdSchedules: 100_000,
      herdLead: 900,
      herdDispatchers: 4,
      workers: 32,
      rawWrites: 10_000,
      bundleReps: 15,
      out: 'bench/results',
    });
  });

  it('reads the herd flags, and refuses a lead too short to add the herd ahead', () => {
    const { flags } = parseCollecting(benchFlags(), ['--herd-schedules', '100000', '--herd-lead=120']);
    expect(flags).toMatchObject({ herdSchedules: 100_000, herdLead: 120 });

    const refused = parseCollecting(benchFlags(), ['--herd-lead', '10']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/--herd-lead/);
  });

  it('reads the loads of the fire-lag curve in % of the ceiling, ascending and each once', () => {
    expect(parseCollecting(benchFlags(), ['--lag-loads', '10,20']).flags).toMatchObject({
      lagLoads: [10, 20],
    });
    expect(parseCollecting(benchFlags(), ['--lag-loads=75, 25,75,100']).flags).toMatchObject({
      lagLoads: [25, 75, 100],
    });
    expect(parseCollecting(benchFlags(), ['--lag-loads', '1']).flags).toMatchObject({ lagLoads: [1] });
  });

  it('reads typed values given as --flag value or --flag=value', () => {
    const { flags } = parseCollecting(benchFlags(), [
      '--sizes=500,2000',
      '--lag-loads',
      '0',
      '--lag-interval=2.5',
      '--limited-jobs=0',
      '--spread-schedules=0',
      '--send-phase-tolerance',
      '0',
      '--workers',
      '4',
      '--out',
      '/tmp/bench',
      '--quick',
    ]);
    expect(flags).toMatchObject({
      sizes: [500, 2000],
      lagLoads: [],
      lagInterval: 2.5,
      limitedJobs: 0,
      spreadSchedules: 0,
      sendPhaseTolerance: 0,
      workers: 4,
      out: '/tmp/bench',
      quick: true,
    });
  });

  it.each([
    [['--sizes', '1000,many'], "error: option '--sizes <list>' argument '1000,many' is invalid."],
    [['--workers', '-4'], "error: option '--workers <n>' argument '-4' is invalid."],
    [
      ['--lag-loads', '25,150'],
      "error: option '--lag-loads <list>' argument '25,150' is invalid. Expected whole percents from 1 to 100, separated by commas (or 0 to skip the fire-lag runs).",
    ],
    [['--lag-loads', '0,50'], "error: option '--lag-loads <list>' argument '0,50' is invalid."],
    [['--lag-loads', '12.5'], "error: option '--lag-loads <list>' argument '12.5' is invalid."],
    [['--lag-loads=50,'], "error: option '--lag-loads <list>' argument '50,' is invalid."],
    [
      ['--send-phase-tolerance', '1001'],
      "error: option '--send-phase-tolerance <ms>' argument '1001' is invalid. Expected a whole number from 0 to 1000.",
    ],
    [['--quik'], "error: unknown option '--quik'\n(Did you mean --quick?)"],
  ])('exits 2 on %j, naming the flag', (argv, message) => {
    const result = parseCollecting(benchFlags(), argv);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.startsWith(message), result.stderr).toBe(true);
  });

  it('prints the generated help with every flag and exits 0', () => {
    const result = parseCollecting(benchFlags(), ['--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^Usage: npm run bench -- \[options\]\n/);
    for (const flag of ['--sizes <list>', '--lag-loads <list>', '--lag-interval <s>', '--lag-seconds <s>']) {
      expect(result.stdout).toContain(`\n  ${flag} `);
    }
    for (const flag of ['--workers <n>', '--raw-writes <n>', '--out <dir>', '--quick']) {
      expect(result.stdout).toContain(`\n  ${flag} `);
    }
  });
});

describe('npm run soak flags', () => {
  it('takes --ci, as .ci/run does, and keeps the defaults of the others', () => {
    expect(parseCollecting(soakFlags(), ['--ci']).flags).toEqual({
      minutes: 5,
      schedules: 2000,
      workers: 16,
      drainSeconds: 900,
      tickSeconds: 1,
      ci: true,
    });
  });

  it('reads --tick-seconds 60, the tick period in AWS', () => {
    expect(parseCollecting(soakFlags(), ['--tick-seconds', '60']).flags).toMatchObject({ tickSeconds: 60 });
  });

  it('reads --minutes=2 and --drain-seconds 0', () => {
    expect(parseCollecting(soakFlags(), ['--minutes=2', '--drain-seconds', '0']).flags).toMatchObject({
      minutes: 2,
      drainSeconds: 0,
    });
  });

  it('exits 2 on a negative number of schedules, naming the flag', () => {
    const result = parseCollecting(soakFlags(), ['--schedules', '-5']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/^error: option '--schedules <n>' argument '-5' is invalid\. /);
  });

  it('prints the generated help with every flag and exits 0', () => {
    const result = parseCollecting(soakFlags(), ['--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^Usage: npm run soak -- \[options\]\n/);
    for (const flag of ['--minutes <n>', '--schedules <n>', '--workers <n>', '--drain-seconds <n>', '--ci']) {
      expect(result.stdout).toContain(`\n  ${flag} `);
    }
  });
});
