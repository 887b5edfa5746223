/** A seed a process of a budget run ran to its end. */
export interface SeedDone {
  kind: 'seed';
  seed: number;
  fires: number;
  simulatedMs: number;
}

/** A seed that broke a promise: when (simulated ms since it began, and its step), after how many of its fires. */
export interface SeedFailed {
  kind: 'failed';
  seed: number;
  atMs: number;
  step: number;
  fires: number;
}

/** What the processes of a budget run have told: the seeds they ran, and the first violation (the lowest seed's). */
export class BudgetProgress {
  private readonly done = new Map<number, SeedDone>();
  failure: SeedFailed | undefined;

  seedDone(done: SeedDone): void {
    this.done.set(done.seed, done);
  }

  /** Records a failed seed; true when it is the lowest so far (the others must stop after it). */
  seedFailed(failed: SeedFailed): boolean {
    if (this.failure && this.failure.seed <= failed.seed) return false;
    this.failure = failed;
    return true;
  }

  /** The seeds below `seed`, and their fires and simulated time. */
  before(seed: number): { seeds: number; fires: number; simulatedMs: number } {
    const earlier = [...this.done.values()].filter((done) => done.seed < seed);
    return {
      seeds: earlier.length,
      fires: earlier.reduce((sum, done) => sum + done.fires, 0),
      simulatedMs: earlier.reduce((sum, done) => sum + done.simulatedMs, 0),
    };
  }
}
