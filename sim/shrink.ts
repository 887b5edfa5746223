import { type RunShape, runOptionsOf } from './profile';
import { type RunResult, simulate } from './run';

/** How many smaller runs shrinking tries at most. */
const MAX_TRIES = 24;

/**
 * A smaller run of the same seed that still fails: halves the schedules and the minutes in turn while
 * the run keeps failing, so the trace it prints is short. Another shape is another run (the seed draws
 * differently), so what it finds may be another failure: it is reported as it is.
 */
export async function shrink(
  seed: number,
  shape: RunShape,
  failed: RunResult,
): Promise<{ shape: RunShape; result: RunResult }> {
  let best = { shape, result: failed };
  let tries = 0;
  for (let progress = true; progress && tries < MAX_TRIES; ) {
    progress = false;
    for (const smaller of smallerShapes(best.shape)) {
      if (tries >= MAX_TRIES) break;
      tries += 1;
      const result = await simulate(runOptionsOf(seed, smaller));
      if (result.violations.length > 0) {
        best = { shape: smaller, result };
        progress = true;
        break;
      }
    }
  }
  return best;
}

function smallerShapes(shape: RunShape): RunShape[] {
  const shapes: RunShape[] = [];
  if (shape.steadySchedules > 0)
    shapes.push({ ...shape, steadySchedules: Math.floor(shape.steadySchedules / 2) });
  if (shape.churnedSchedules > 1)
    shapes.push({ ...shape, churnedSchedules: Math.ceil(shape.churnedSchedules / 2) });
  if (shape.minutes > 2) shapes.push({ ...shape, minutes: Math.ceil(shape.minutes / 2) });
  return shapes;
}
